package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/aggsim/aggsim/aggregator"
	"github.com/aggsim/aggsim/aggregator/inspectorpage"
)

// inspectorFlags are `aggsim serve`'s web inspector flags (issue 18).
type inspectorFlags struct {
	port     int
	ringSize int
}

func (f *inspectorFlags) add(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.IntVar(&f.port, "inspector-port", 0, "port of the web inspector on 127.0.0.1 (loopback only; 0 picks a free port, -1 turns the page off); its one-time login URL is printed")
	fl.IntVar(&f.ringSize, "inspector-ring-size", aggregator.DefaultInspectorRingSize, "how many requests the inspector keeps in memory (0 turns recording off)")
}

// startInspector serves the inspector page for srv on 127.0.0.1 and
// returns its one-time login URL and a function that stops it; with
// --inspector-port=-1 it returns "" and a no-op. Errors: listening.
func startInspector(f inspectorFlags, srv *aggregator.Server, apiServer string, logger *slog.Logger) (string, func(context.Context), error) {
	if f.port < 0 {
		return "", func(context.Context) {}, nil
	}
	page, err := inspectorpage.New(srv, inspectorpage.Options{Server: apiServer})
	if err != nil {
		return "", nil, err
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(f.port)))
	if err != nil {
		return "", nil, fmt.Errorf("--inspector-port: %w", err)
	}
	hs := &http.Server{Handler: page, ReadHeaderTimeout: 10 * time.Second, ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelDebug)}
	go func() {
		if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Error("inspector", "err", err)
		}
	}()
	url := "http://" + ln.Addr().String() + page.LoginPath()
	// Close, not Shutdown: the page's event streams never end by
	// themselves, and nothing else it serves is worth waiting for.
	return url, func(context.Context) { _ = hs.Close() }, nil
}

// printInspector writes the banner line of the inspector.
func printInspector(out io.Writer, url string) {
	if url != "" {
		fmt.Fprintf(out, "inspector: %s (one-time login; loopback only)\n", url)
	}
}
