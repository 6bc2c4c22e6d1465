# aggsim — see README.md. Every target works on a fresh clone with Go, gcc and kubectl.
GO        ?= go
BIN       ?= bin/aggsim
# DATA_DIR empty: the default data dir ($XDG_STATE_HOME/aggsim or ~/.local/state/aggsim),
# which README's walkthrough uses.
DATA_DIR  ?=
FUZZTIME  ?= 3s
# Every Fuzz* target in the tree runs for FUZZTIME in `make test` (their seed
# corpora also run as plain unit tests in every `go test`).

.PHONY: build run test unit fuzz bench lint clean

build:
	$(GO) build -o $(BIN) ./cmd/aggsim

run: build
	$(BIN) serve --demo $(if $(DATA_DIR),--data-dir $(DATA_DIR))

test: lint unit fuzz

unit:
	$(GO) test -race -count=1 -timeout 15m ./...

fuzz:
	@set -e; for f in $$(grep -rlE --include='*_test.go' '^func Fuzz' . | sort); do \
	  pkg=./$$(dirname $$f | sed 's|^\./||'); \
	  for name in $$(grep -hoE '^func Fuzz[A-Za-z0-9_]+' $$f | cut -c6-); do \
	    echo "fuzz $$pkg $$name ($(FUZZTIME))"; \
	    $(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) $$pkg; \
	  done; \
	done

bench:
	$(GO) test -run '^$$' -bench . -benchmem -benchtime 2000x ./...

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

clean:
	rm -rf bin
