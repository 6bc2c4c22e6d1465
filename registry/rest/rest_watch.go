package rest

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/aggsim/aggsim/registry"
	"github.com/aggsim/aggsim/registry/apis/meta"
	"github.com/aggsim/aggsim/registry/negotiation"
)

// watchEventJSON is one line of a watch response (metav1.WatchEvent).
type watchEventJSON struct {
	Type   string `json:"type"`
	Object any    `json:"object"`
}

// serveWatch streams the events of a watch as JSON lines
// `{"type":"ADDED","object":{...}}`, flushing after each. With
// as=Table each object becomes a one-row Table (column definitions only on
// the first); with as=PartialObjectMetadata only metadata is sent. Errors
// found before the stream starts are ordinary Status responses; the stream
// ends at timeoutSeconds, client disconnect or API.Shutdown. It returns,
// unwritten, only the errors found before the stream starts.
func (a *API) serveWatch(w http.ResponseWriter, r *http.Request, rq resourceRequest, opts registry.ListOptions) error {
	f, err := negotiation.Output(r, negotiation.TargetWatch)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	go func() {
		select {
		case <-a.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	events, err := rq.store.Watch(ctx, rq.namespace, opts)
	if err != nil {
		return err
	}
	flusher, _ := w.(http.Flusher)
	w.Header().Set("Content-Type", negotiation.MediaJSON)
	w.Header().Set("Transfer-Encoding", "chunked")
	w.WriteHeader(http.StatusOK)
	if flusher != nil {
		flusher.Flush()
	}
	include := r.URL.Query().Get("includeObject")
	headers := true
	for ev := range events {
		line := watchEventJSON{Type: ev.Type}
		switch {
		case ev.Type == registry.EventError:
			line.Object = ev.Status
		case ev.Type == registry.EventBookmark:
			line.Object = ev.Object
		case f.As == "Table":
			t, err := buildTable(rq.store.Strategy(), []meta.Object{ev.Object}, meta.ListMeta{ResourceVersion: ev.Object.GetObjectMeta().ResourceVersion}, include, f.MetaVersion, headers)
			if err != nil {
				st := meta.NewInternalError(err).Status
				line = watchEventJSON{Type: registry.EventError, Object: &st}
			} else {
				headers = false
				line.Object = t
			}
		case f.As == "PartialObjectMetadata":
			line.Object = partialMetadata(ev.Object, f.MetaVersion)
		default:
			line.Object = ev.Object
		}
		b, err := json.Marshal(line)
		if err != nil {
			a.log.Error("encode watch event", "err", err)
			return nil
		}
		if _, err := w.Write(append(b, '\n')); err != nil {
			return nil
		}
		if flusher != nil {
			flusher.Flush()
		}
	}
	return nil
}
