package admission

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/aggsim/aggsim/registry/apis/admissionregistration"
)

// Poster posts review bodies to webhooks with the admission webhooks'
// client machinery (cached clients per caBundle and server name, service
// resolution, HTTP/2 by url and HTTP/1.1 by service), for the other
// callers of user webhooks: CRD conversion (upstream's webhook
// ClientManager, shared the same way). Safe for concurrent use.
type Poster struct {
	d *Dispatcher
}

// Poster returns a Poster sharing d's clients and resolver.
func (d *Dispatcher) Poster() *Poster { return &Poster{d: d} }

// PostResult is one webhook call: the URL called (with ?timeout=), the
// HTTP status, the response's Content-Type header ("" when absent) and
// body (nil when no answer came).
type PostResult struct {
	URL         string
	StatusCode  int
	ContentType string
	Body        []byte
}

// Post sends body (JSON) to the webhook of cc at <url>?timeout=<timeout>
// with User-Agent kube-apiserver-admission, waiting at most timeout.
// Errors read as upstream's webhook client's: `Post "<url>": <cause>`
// (dial, TLS, context deadline exceeded) or, for a non-2xx answer,
// client-go's generic server error (`an error on the server ("boom") has
// prevented the request from succeeding`, or the Status the webhook
// answered).
func (p *Poster) Post(ctx context.Context, cc admissionregistration.WebhookClientConfig, timeout time.Duration, body []byte) (PostResult, error) {
	var res PostResult
	u, serverName, err := p.d.target(cc)
	if err != nil {
		return res, err
	}
	q := u.Query()
	q.Set("timeout", timeout.String())
	u.RawQuery = q.Encode()
	res.URL = u.String()
	client, err := p.d.clients.get(cc.CABundle, serverName, cc.URL == nil)
	if err != nil {
		return res, err
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(cctx, http.MethodPost, res.URL, bytes.NewReader(body))
	if err != nil {
		return res, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, */*")
	req.Header.Set("User-Agent", "kube-apiserver-admission")
	hr, err := client.Do(req)
	if err != nil {
		return res, err
	}
	defer hr.Body.Close()
	rb, err := io.ReadAll(io.LimitReader(hr.Body, 3<<20))
	if err != nil {
		return res, fmt.Errorf("Post %q: %w", res.URL, err)
	}
	res.StatusCode, res.ContentType, res.Body = hr.StatusCode, hr.Header.Get("Content-Type"), rb
	if hr.StatusCode < 200 || hr.StatusCode > 299 {
		return res, genericServerError(hr, rb)
	}
	return res, nil
}
