package proxy

import (
	"context"
	"testing"
)

func TestBufferPoolReuses(t *testing.T) {
	var p bufferPool
	b := p.Get()
	if len(b) != copyBufferSize || cap(b) != copyBufferSize {
		t.Fatalf("Get: len %d cap %d, want %d", len(b), cap(b), copyBufferSize)
	}
	p.Put(make([]byte, 10)) // a foreign size is dropped, not panicking
	if n := testing.AllocsPerRun(100, func() { p.Put(p.Get()) }); n != 0 {
		t.Errorf("Get+Put allocates %v times, want 0", n)
	}
}

func TestProxyCallContext(t *testing.T) {
	type k struct{}
	c := &proxyCall{Context: context.WithValue(context.Background(), k{}, "v"), host: "h:1"}
	ctx, cancel := context.WithCancel(c) // as ReverseProxy may derive
	defer cancel()
	if got := callFrom(ctx); got != c {
		t.Fatalf("callFrom = %p, want %p", got, c)
	}
	if ctx.Value(k{}) != "v" {
		t.Errorf("other keys are not delegated")
	}
	c.setErr(context.Canceled)
	c.setErr(context.DeadlineExceeded)
	if c.err != context.Canceled {
		t.Errorf("setErr kept %v, want the first error", c.err)
	}
}
