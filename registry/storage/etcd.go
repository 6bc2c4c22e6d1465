package storage

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// EtcdOptions configures OpenEtcd with kube-apiserver's --etcd-* flags. The
// zero value of a field is its documented default.
type EtcdOptions struct {
	// Servers are the etcd client URLs (--etcd-servers), at least one.
	Servers []string
	// Prefix is put before every key (--etcd-prefix); "" means
	// DefaultEtcdPrefix.
	Prefix string
	// CAFile, CertFile and KeyFile are the PEM files of TLS to etcd
	// (--etcd-cafile, --etcd-certfile, --etcd-keyfile): the CA that signed
	// etcd's serving certificate and the client certificate and key.
	// Empty means plain TCP (http:// servers).
	CAFile, CertFile, KeyFile string
	// CompactionInterval is how often the history is compacted
	// (--etcd-compaction-interval; upstream's default 5m). 0 never
	// compacts. Each interval compacts the revision seen one interval
	// earlier, so one interval of history is always kept, and replicas
	// sharing the etcd compact once per interval between them (upstream's
	// compact_rev_key protocol, apiserver/pkg/storage/etcd3/compact.go).
	CompactionInterval time.Duration
	// DialTimeout bounds the first connection; 0 means 20 s as upstream's
	// storagebackend dial timeout.
	DialTimeout time.Duration
	// Logger receives watch reconnections and compactions; nil means
	// slog.Default().
	Logger *slog.Logger
}

// compactRevKey is the key through which every kube-apiserver sharing an
// etcd agrees on who compacts (upstream's compactRevKey, outside any
// prefix).
const compactRevKey = "compact_rev_key"

// writeVisibleTimeout bounds how long a write waits for its own event to
// arrive through the store's etcd watch before it returns anyway.
const writeVisibleTimeout = 5 * time.Second

// Etcd is a Storage in etcd v3, for several aggsim replicas sharing one
// store as kube-apiserver replicas do. Keys are laid out as kube-apiserver
// lays them out (etcdKeys), values are the JSON bytes, and a key's
// ModRevision is its etcd mod revision, so a resourceVersion means the
// same on every replica. Creates, updates and deletes are etcd
// transactions comparing the key's create or mod revision.
//
// All watches of a replica share one etcd watch on the whole prefix,
// fanned out by the same broadcaster the other backends use (upstream's
// watch cache keeps one etcd watch per resource): a thousand watchers are
// one etcd watch. The broadcaster's window starts at the revision the
// store was opened at; a watch from before it, or from before a
// compaction, fails with a *CompactedError. A write returns once its event
// has come back through that watch (or after writeVisibleTimeout), so a
// write is visible to this replica's watchers when it returns, as with the
// other backends.
type Etcd struct {
	cli  *clientv3.Client
	keys etcdKeys
	log  *slog.Logger

	closed atomic.Bool
	cancel context.CancelFunc
	done   sync.WaitGroup

	watch *broadcaster
	seen  revNotifier
}

// OpenEtcd connects to opts.Servers, reads the current revision and starts
// the shared watch (and the compactor when opts.CompactionInterval > 0).
// Errors: no servers, unreadable TLS files, or etcd not answering within
// the dial timeout.
func OpenEtcd(opts EtcdOptions) (*Etcd, error) {
	return openEtcd(opts, defaultWatchConfig())
}

// openEtcd is OpenEtcd with the watch window given directly (tests).
func openEtcd(opts EtcdOptions, cfg watchConfig) (*Etcd, error) {
	if len(opts.Servers) == 0 {
		return nil, errors.New("storage: --etcd-servers must name at least one server")
	}
	if opts.CompactionInterval < 0 || opts.DialTimeout < 0 {
		return nil, fmt.Errorf("storage: negative EtcdOptions duration")
	}
	if opts.Prefix == "" {
		opts.Prefix = DefaultEtcdPrefix
	}
	if !strings.HasPrefix(opts.Prefix, "/") {
		opts.Prefix = "/" + opts.Prefix
	}
	if opts.DialTimeout == 0 {
		opts.DialTimeout = 20 * time.Second
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	tlsCfg, err := etcdTLS(opts)
	if err != nil {
		return nil, err
	}
	cli, err := clientv3.New(clientv3.Config{
		Endpoints:            opts.Servers,
		DialTimeout:          opts.DialTimeout,
		DialKeepAliveTime:    30 * time.Second,
		DialKeepAliveTimeout: 10 * time.Second,
		TLS:                  tlsCfg,
		Logger:               zap.NewNop(),
	})
	if err != nil {
		return nil, fmt.Errorf("storage: etcd client: %w", err)
	}
	keys := newEtcdKeys(opts.Prefix)
	rctx, cancelRead := context.WithTimeout(context.Background(), opts.DialTimeout)
	resp, err := cli.Get(rctx, keys.prefix+"/", clientv3.WithPrefix(), clientv3.WithCountOnly())
	cancelRead()
	if err != nil {
		cli.Close()
		return nil, fmt.Errorf("storage: etcd %s: %w", strings.Join(opts.Servers, ","), err)
	}
	rev := resp.Header.Revision
	ctx, cancel := context.WithCancel(context.Background())
	e := &Etcd{cli: cli, keys: keys, log: opts.Logger, cancel: cancel, watch: newBroadcaster(cfg, rev)}
	e.seen.init(rev)
	e.done.Add(2)
	go func() { defer e.done.Done(); e.watchLoop(ctx, rev) }()
	go func() { defer e.done.Done(); e.compactWatchLoop(ctx) }()
	if opts.CompactionInterval > 0 {
		e.done.Add(1)
		go func() { defer e.done.Done(); e.compactLoop(ctx, opts.CompactionInterval) }()
	}
	return e, nil
}

// etcdTLS builds the client TLS configuration from the --etcd-* files, or
// nil when none is given.
func etcdTLS(opts EtcdOptions) (*tls.Config, error) {
	if opts.CAFile == "" && opts.CertFile == "" && opts.KeyFile == "" {
		return nil, nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if opts.CAFile != "" {
		pem, err := os.ReadFile(opts.CAFile)
		if err != nil {
			return nil, fmt.Errorf("storage: --etcd-cafile: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("storage: --etcd-cafile %s: no PEM certificate", opts.CAFile)
		}
		cfg.RootCAs = pool
	}
	if (opts.CertFile == "") != (opts.KeyFile == "") {
		return nil, errors.New("storage: --etcd-certfile and --etcd-keyfile go together")
	}
	if opts.CertFile != "" {
		cert, err := tls.LoadX509KeyPair(opts.CertFile, opts.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("storage: --etcd-certfile/--etcd-keyfile: %w", err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return cfg, nil
}

// begin checks a call's key, context and the store's state.
func (e *Etcd) begin(ctx context.Context, key string, write bool) error {
	if write {
		if err := checkKey(key); err != nil {
			return err
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if e.closed.Load() {
		return ErrClosed
	}
	return nil
}

// etcdErr maps a client error: a cancelled context stays itself, a closed
// client is ErrClosed, anything else is wrapped.
func (e *Etcd) etcdErr(ctx context.Context, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		return cerr
	}
	if e.closed.Load() {
		return ErrClosed
	}
	return fmt.Errorf("storage: etcd: %w", err)
}

// Get implements Storage.Get.
func (e *Etcd) Get(ctx context.Context, key string) (KV, error) {
	if err := e.begin(ctx, key, false); err != nil {
		return KV{}, err
	}
	resp, err := e.cli.Get(ctx, e.keys.toEtcd(key))
	if err != nil {
		return KV{}, e.etcdErr(ctx, err)
	}
	if len(resp.Kvs) == 0 {
		return KV{}, ErrKeyNotFound
	}
	kv := resp.Kvs[0]
	return KV{Key: key, Value: clone(kv.Value), ModRevision: kv.ModRevision}, nil
}

// List implements Storage.List: one linearizable range read; the revision
// is that read's header revision.
func (e *Etcd) List(ctx context.Context, prefix string) ([]KV, int64, error) {
	kvs, rev, _, err := e.ListAt(ctx, prefix, 0, "", 0)
	return kvs, rev, err
}

// ListAt lists the keys under prefix as they were at revision rev (0: the
// current state), starting at key start (inclusive; "" from the first) and
// returning at most limit keys (0: all), with the revision read and
// whether more keys follow. It is the consistent, paged list upstream's
// etcd3 store serves for resourceVersionMatch=Exact and continue tokens.
// A revision below the compacted one returns a *CompactedError.
func (e *Etcd) ListAt(ctx context.Context, prefix string, rev int64, start string, limit int64) ([]KV, int64, bool, error) {
	if err := e.begin(ctx, prefix, false); err != nil {
		return nil, 0, false, err
	}
	from, exact := e.keys.rangeOf(prefix)
	end := clientv3.GetPrefixRangeEnd(from)
	key := from
	if start != "" && exact {
		key = max(from, e.keys.toEtcd(start))
	}
	var out []KV
	more := false
	for page := 0; page < 1<<20; page++ {
		opts := []clientv3.OpOption{clientv3.WithRange(end)}
		if rev > 0 {
			opts = append(opts, clientv3.WithRev(rev))
		}
		if exact && limit > 0 {
			opts = append(opts, clientv3.WithLimit(limit-int64(len(out))+1))
		}
		resp, err := e.cli.Get(ctx, key, opts...)
		if errors.Is(err, rpctypes.ErrCompacted) {
			return nil, 0, false, &CompactedError{Floor: rev}
		}
		if err != nil {
			return nil, 0, false, e.etcdErr(ctx, err)
		}
		if rev == 0 {
			rev = resp.Header.Revision // later pages read this snapshot
		}
		for _, kv := range resp.Kvs {
			k, ok := e.keys.fromEtcd(string(kv.Key))
			if !ok || !strings.HasPrefix(k, prefix) || (start != "" && k < start) {
				continue
			}
			out = append(out, KV{Key: k, Value: clone(kv.Value), ModRevision: kv.ModRevision})
		}
		if !exact || limit == 0 || !resp.More || int64(len(out)) > limit {
			break
		}
		key = string(resp.Kvs[len(resp.Kvs)-1].Key) + "\x00"
	}
	if !exact {
		slices.SortFunc(out, func(a, b KV) int { return strings.Compare(a.Key, b.Key) })
	}
	if limit > 0 && int64(len(out)) > limit {
		out, more = out[:limit], true
	}
	return out, rev, more, nil
}

// Create implements Storage.Create: put if the key's create revision is 0.
func (e *Etcd) Create(ctx context.Context, key string, value []byte) (int64, error) {
	if err := e.begin(ctx, key, true); err != nil {
		return 0, err
	}
	ek := e.keys.toEtcd(key)
	resp, err := e.cli.Txn(ctx).
		If(clientv3.Compare(clientv3.CreateRevision(ek), "=", 0)).
		Then(clientv3.OpPut(ek, string(value))).
		Commit()
	if err != nil {
		return 0, e.etcdErr(ctx, err)
	}
	if !resp.Succeeded {
		return 0, ErrKeyExists
	}
	rev := resp.Header.Revision
	e.seen.wait(ctx, rev, writeVisibleTimeout)
	return rev, nil
}

// Update implements Storage.Update: put if the key's mod revision is
// expected (expected 0: if the key exists).
func (e *Etcd) Update(ctx context.Context, key string, value []byte, expected int64) (int64, error) {
	if err := e.begin(ctx, key, true); err != nil {
		return 0, err
	}
	ek := e.keys.toEtcd(key)
	cmp := clientv3.Compare(clientv3.ModRevision(ek), "=", expected)
	if expected == 0 {
		cmp = clientv3.Compare(clientv3.CreateRevision(ek), ">", 0)
	}
	resp, err := e.cli.Txn(ctx).If(cmp).
		Then(clientv3.OpPut(ek, string(value))).
		Else(clientv3.OpGet(ek, clientv3.WithKeysOnly())).
		Commit()
	if err != nil {
		return 0, e.etcdErr(ctx, err)
	}
	if !resp.Succeeded {
		return 0, missingOrMismatch(resp)
	}
	rev := resp.Header.Revision
	e.seen.wait(ctx, rev, writeVisibleTimeout)
	return rev, nil
}

// missingOrMismatch tells a failed compare apart: the Else branch's get
// found no key (ErrKeyNotFound) or a key at another revision.
func missingOrMismatch(resp *clientv3.TxnResponse) error {
	if len(resp.Responses) == 0 {
		return ErrKeyNotFound
	}
	rr := resp.Responses[0].GetResponseRange()
	if rr == nil || len(rr.Kvs) == 0 {
		return ErrKeyNotFound
	}
	return ErrRevisionMismatch
}

// Delete implements Storage.Delete: delete if the key's mod revision is
// expected (expected 0: if the key exists), returning the deleted value.
func (e *Etcd) Delete(ctx context.Context, key string, expected int64) (int64, KV, error) {
	if err := e.begin(ctx, key, true); err != nil {
		return 0, KV{}, err
	}
	ek := e.keys.toEtcd(key)
	cmp := clientv3.Compare(clientv3.ModRevision(ek), "=", expected)
	if expected == 0 {
		cmp = clientv3.Compare(clientv3.CreateRevision(ek), ">", 0)
	}
	resp, err := e.cli.Txn(ctx).If(cmp).
		Then(clientv3.OpDelete(ek, clientv3.WithPrevKV())).
		Else(clientv3.OpGet(ek, clientv3.WithKeysOnly())).
		Commit()
	if err != nil {
		return 0, KV{}, e.etcdErr(ctx, err)
	}
	if !resp.Succeeded {
		return 0, KV{}, missingOrMismatch(resp)
	}
	dr := resp.Responses[0].GetResponseDeleteRange()
	if dr == nil || len(dr.PrevKvs) == 0 {
		// Compared existing, deleted nothing: cannot happen in one txn.
		return 0, KV{}, ErrKeyNotFound
	}
	prev := dr.PrevKvs[0]
	rev := resp.Header.Revision
	e.seen.wait(ctx, rev, writeVisibleTimeout)
	return rev, KV{Key: key, Value: clone(prev.Value), ModRevision: prev.ModRevision}, nil
}

// Watch implements Storage.Watch from the replica's shared etcd watch.
// Events share their byte slices with other watchers: receivers must not
// modify them.
func (e *Etcd) Watch(ctx context.Context, prefix string, fromRevision int64) (<-chan Event, error) {
	if err := e.begin(ctx, prefix, false); err != nil {
		return nil, err
	}
	return e.watch.watch(ctx, prefix, fromRevision)
}

// Revision implements Storage.Revision: the highest revision this replica
// has seen through its watch (its own writes included, see Etcd), which
// the etcd's progress notifications keep current when nothing under the
// prefix changes.
func (e *Etcd) Revision() int64 { return e.seen.current() }

// Close implements Storage.Close: the shared watch and the compactor stop,
// watchers are closed and later calls return ErrClosed. Closing twice
// returns nil.
func (e *Etcd) Close() error {
	if e.closed.Swap(true) {
		return nil
	}
	e.cancel()
	e.done.Wait()
	e.watch.close()
	e.seen.advance(1<<62 - 1) // release writers still waiting
	return e.cli.Close()
}

// watchLoop keeps one etcd watch on the whole prefix, from the revision
// after rev, and publishes its events in order. A broken watch is resumed
// from the last revision seen; if etcd compacted past it (a long outage),
// the window restarts at the current revision and every watcher is closed,
// so that its client re-lists, as upstream's cacher does.
func (e *Etcd) watchLoop(ctx context.Context, rev int64) {
	backoff := 100 * time.Millisecond
	for ctx.Err() == nil {
		wch := e.cli.Watch(clientv3.WithRequireLeader(ctx), e.keys.prefix+"/", clientv3.WithPrefix(),
			clientv3.WithRev(rev+1), clientv3.WithPrevKV(), clientv3.WithProgressNotify())
		for resp := range wch {
			if resp.CompactRevision != 0 {
				cur := e.resync(ctx)
				if cur == 0 {
					break
				}
				e.log.Warn("etcd watch compacted; watchers re-list", "from", rev+1, "compacted", resp.CompactRevision, "now", cur)
				rev = cur
				break
			}
			if err := resp.Err(); err != nil {
				if ctx.Err() == nil {
					e.log.Info("etcd watch ended; resuming", "revision", rev, "err", err)
				}
				break
			}
			backoff = 100 * time.Millisecond
			for _, ev := range resp.Events {
				e.publish(ev)
				rev = ev.Kv.ModRevision
			}
			if resp.IsProgressNotify() && resp.Header.Revision > rev {
				rev = resp.Header.Revision
				e.watch.progress(rev)
				e.seen.advance(rev)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 2*time.Second)
	}
}

// resync restarts the window at the current revision after the shared
// watch lost events; it returns that revision, or 0 if etcd cannot be read.
func (e *Etcd) resync(ctx context.Context) int64 {
	resp, err := e.cli.Get(ctx, e.keys.prefix+"/", clientv3.WithPrefix(), clientv3.WithCountOnly())
	if err != nil {
		return 0
	}
	rev := resp.Header.Revision
	e.watch.restart(rev)
	e.seen.advance(rev)
	return rev
}

// publish hands one etcd event to the broadcaster.
func (e *Etcd) publish(ev *clientv3.Event) {
	key, ok := e.keys.fromEtcd(string(ev.Kv.Key))
	rev := ev.Kv.ModRevision
	if ok {
		out := Event{Key: key, Revision: rev}
		if ev.PrevKv != nil {
			out.PrevValue = ev.PrevKv.Value
		}
		switch ev.Type {
		case mvccpb.DELETE:
			out.Type = EventDelete
			out.Value = out.PrevValue
			if out.Value == nil {
				out.Value = []byte{}
				out.PrevValue = out.Value
			}
		default:
			out.Type = EventPut
			out.Value = ev.Kv.Value
			if out.Value == nil {
				out.Value = []byte{}
			}
			if ev.IsCreate() {
				out.PrevValue = nil
			}
		}
		e.watch.publish(out)
	}
	e.seen.advance(rev)
}

// compactWatchLoop follows compact_rev_key: when it moves from revision a
// to b, the replica that moved it compacts a, so this replica's window no
// longer replays anything at or below a (watches from there get 410 as
// from a compacted etcd).
func (e *Etcd) compactWatchLoop(ctx context.Context) {
	for ctx.Err() == nil {
		for resp := range e.cli.Watch(ctx, compactRevKey, clientv3.WithPrevKV()) {
			for _, ev := range resp.Events {
				if ev.PrevKv == nil {
					continue
				}
				if r, err := strconv.ParseInt(string(ev.PrevKv.Value), 10, 64); err == nil && r > 0 {
					e.watch.compact(r)
				}
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second):
		}
	}
}

// compactLoop compacts every interval as upstream's compactor does: each
// round tries to move compact_rev_key from the version it last saw to the
// current revision; the replica that succeeds compacts the revision
// recorded the round before. Replicas that lose learn the new version and
// try again next round, so one compaction happens per interval in all.
func (e *Etcd) compactLoop(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	var version, compactRev int64
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		v, rev, err := e.compactOnce(ctx, version, compactRev)
		if err != nil {
			if ctx.Err() == nil {
				e.log.Info("etcd compaction failed", "revision", compactRev, "err", err)
			}
			continue
		}
		version, compactRev = v, rev
	}
}

// compactOnce is one round of compactLoop: it returns the version of
// compact_rev_key now and the revision to compact next round.
func (e *Etcd) compactOnce(ctx context.Context, version, rev int64) (int64, int64, error) {
	resp, err := e.cli.Txn(ctx).
		If(clientv3.Compare(clientv3.Version(compactRevKey), "=", version)).
		Then(clientv3.OpPut(compactRevKey, strconv.FormatInt(rev, 10))).
		Else(clientv3.OpGet(compactRevKey)).
		Commit()
	if err != nil {
		return version, rev, err
	}
	cur := resp.Header.Revision
	if !resp.Succeeded {
		kvs := resp.Responses[0].GetResponseRange().Kvs
		if len(kvs) == 0 {
			return 0, cur, nil
		}
		return kvs[0].Version, cur, nil
	}
	if rev > 0 {
		if _, err := e.cli.Compact(ctx, rev); err != nil && !errors.Is(err, rpctypes.ErrCompacted) {
			return version + 1, cur, err
		}
		e.log.Info("etcd compacted", "revision", rev)
	}
	return version + 1, cur, nil
}

// revNotifier is the highest revision seen through the shared watch, with
// a way to wait for one.
type revNotifier struct {
	mu  sync.Mutex
	rev int64
	ch  chan struct{} // closed and replaced whenever rev grows
}

func (n *revNotifier) init(rev int64) {
	n.rev, n.ch = rev, make(chan struct{})
}

func (n *revNotifier) current() int64 {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.rev
}

func (n *revNotifier) advance(rev int64) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if rev > n.rev {
		n.rev = rev
		close(n.ch)
		n.ch = make(chan struct{})
	}
}

// wait returns once rev has been seen, ctx ended or timeout passed.
func (n *revNotifier) wait(ctx context.Context, rev int64, timeout time.Duration) {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		n.mu.Lock()
		cur, ch := n.rev, n.ch
		n.mu.Unlock()
		if cur >= rev {
			return
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return
		case <-timer.C:
			return
		}
	}
}

var _ Storage = (*Etcd)(nil)
