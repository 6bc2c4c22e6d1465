package aggregator

import (
	"bytes"
	"context"
	"errors"
)

// errDiscoveryUnchanged is discoveryMemo.read's answer when aggregated
// discovery is byte for byte what its reader last processed.
var errDiscoveryUnchanged = errors.New("aggregated discovery unchanged")

// discoveryMemo remembers the aggregated discovery documents (/api, /apis)
// a periodic reader last processed in full, so that a re-read that finds
// the same bytes is not decoded and processed again. The garbage
// collector re-reads discovery every gcResyncInterval (5 s); on an idle
// server the documents do not change, and decoding them and rebuilding
// the REST mapping each time was most of what the idle server allocated
// after the ConfigMap and availability syncs (issue 21: the idle heap
// grows until the next collection). A memo belongs to one goroutine.
type discoveryMemo struct {
	done    [2][]byte // the documents last processed
	read    [2][]byte // the documents of the last read, decoded
	valid   bool      // done holds a processed read
	pending bool      // read holds a decoded read not yet marked processed
}

// readDiscovery reads aggregated discovery as readAggregatedDiscovery does
// (the same resources and errors; both documents are read before either
// is decoded), except that when both documents are those of the last
// read marked processed it returns errDiscoveryUnchanged without decoding
// them.
func (m *discoveryMemo) readDiscovery(ctx context.Context, client loopback) ([]discoveredResource, error) {
	var bodies [2][]byte
	for i, root := range discoveryRoots {
		var err error
		if bodies[i], err = fetchDiscovery(ctx, client, root); err != nil {
			return nil, err
		}
	}
	if m.valid && bytes.Equal(bodies[0], m.done[0]) && bytes.Equal(bodies[1], m.done[1]) {
		return nil, errDiscoveryUnchanged
	}
	m.pending = false
	var out []discoveredResource
	failed := discoveryFailedError{}
	for i, root := range discoveryRoots {
		var err error
		if out, err = appendDiscovered(out, failed, root, bodies[i]); err != nil {
			return out, err
		}
	}
	m.read, m.pending = bodies, true
	if len(failed) > 0 {
		return out, failed
	}
	return out, nil
}

// processed marks the last read, decoded without error (stale group
// versions included), as processed in full: the next read that finds the
// same documents returns errDiscoveryUnchanged.
func (m *discoveryMemo) processed() {
	if m.pending {
		m.done, m.valid, m.pending = m.read, true, false
	}
}
