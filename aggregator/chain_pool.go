package aggregator

import (
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/aggsim/aggsim/aggregator/request"
)

// stackPool runs the deep part of a request (authentication through the
// handler and the proxy's round trip) on long-lived worker goroutines
// whose stacks have already grown. Go's HTTP/2 server starts every
// request on a new goroutine with a small stack, and a proxied request
// needs about 16 KiB: growing to it costs two or three stack copies per
// request (each copying the stack and adjusting every frame), about a
// tenth of aggsim's CPU under load in profiles (issue 21). A worker's
// stack stays grown between requests (the runtime halves an idle
// goroutine's stack at most once per GC cycle). Hand-off costs two
// goroutine switches on the same P. When every worker is busy and the
// pool is at its limit, the request runs on its own goroutine as before.
type stackPool struct {
	tasks   chan *poolTask
	workers atomic.Int32
	max     int32
	free    sync.Pool // *poolTask
}

// poolTask is one request handed to a worker.
type poolTask struct {
	c       *handlerChain
	st      *requestState
	r       *http.Request
	h       http.Handler
	ri      *request.RequestInfo
	riErr   error
	proxied bool
	done    chan any // the panic value (wrapped) or nil, once served
}

// poolPanic carries a worker's panic, with the worker's stack, back to
// the serving goroutine, which panics again with it (http.ErrAbortHandler
// itself is passed as is, so the server still sees it).
type poolPanic struct {
	value any
	stack []byte
}

// stackPoolWorkers bounds the workers: more concurrent requests than
// this run on their own goroutines.
const stackPoolWorkers = 256

// newStackPool returns a pool of at most max workers, started on demand.
func newStackPool(max int) *stackPool {
	return &stackPool{tasks: make(chan *poolTask), max: int32(max)}
}

// serve runs c.serve for the request on a worker, or on the calling
// goroutine when none is free and the pool is full; it returns once the
// request is served, panicking again with the worker's panic.
func (p *stackPool) serve(c *handlerChain, st *requestState, r *http.Request, h http.Handler, ri *request.RequestInfo, riErr error, proxied bool) {
	t, _ := p.free.Get().(*poolTask)
	if t == nil {
		t = &poolTask{done: make(chan any, 1)}
	}
	t.c, t.st, t.r, t.h, t.ri, t.riErr, t.proxied = c, st, r, h, ri, riErr, proxied
	select {
	case p.tasks <- t:
	default:
		if n := p.workers.Add(1); n > p.max {
			p.workers.Add(-1)
			p.release(t)
			c.serve(st, r, h, ri, riErr, proxied)
			return
		}
		go p.work(t)
	}
	v := <-t.done
	p.release(t)
	if v != nil {
		panic(v)
	}
}

func (p *stackPool) release(t *poolTask) {
	t.c, t.st, t.r, t.h, t.ri, t.riErr = nil, nil, nil, nil, nil, nil
	p.free.Put(t)
}

// work serves first, then every task it receives, forever.
func (p *stackPool) work(first *poolTask) {
	for t := first; ; t = <-p.tasks {
		t.done <- runPoolTask(t)
	}
}

// runPoolTask serves t and returns what it panicked with, or nil.
func runPoolTask(t *poolTask) (panicked any) {
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panicked = v
				return
			}
			buf := make([]byte, 64<<10)
			panicked = &poolPanic{value: v, stack: buf[:runtime.Stack(buf, false)]}
		}
	}()
	t.c.serve(t.st, t.r, t.h, t.ri, t.riErr, t.proxied)
	return nil
}
