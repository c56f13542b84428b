package kuatia

/*
#include <kuatia.h>
*/
import "C"

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"net/http"
	"runtime"
	"sort"
	"sync"
	"time"
)

// ErrServiceClosed is returned when a closed Service is used.
var ErrServiceClosed = errors.New("kuatia: service is closed")

// ServiceOptions configure NewService. Every field is optional.
type ServiceOptions struct {
	// Config is the service configuration as JSON (a value or raw JSON): base_url (for kude_url),
	// sandbox_send_after and sandbox_answer_after (seconds until the simulated SIFEN receives and answers an
	// invoice created without _simulate), max_per_page. nil: the defaults.
	Config any
	// SandboxSigner signs invoices of dk_test_ keys; nil: they are simulated unsigned.
	SandboxSigner *Signer
	// ProductionSigner signs invoices of dk_live_ keys; nil: live invoices are refused.
	ProductionSigner *Signer
	// Now is the clock; nil means time.Now. The library has none of its own.
	Now func() time.Time
}

// Service is the in-process /v1 API (kuatia_service): accounts, API keys, invoices, KuDE and webhooks kept in
// memory, answering HTTP-shaped requests without a server. It may be used by any number of goroutines at once
// (the library serializes the calls). Close frees it after the calls in flight return; a finalizer frees a
// forgotten one. The signers stay owned by the caller and must stay open while the service uses them.
type Service struct {
	mu   sync.RWMutex // read-held by each call, write-held by Close
	ptr  *C.kuatia_service
	opts ServiceOptions
}

// Account is a new account and its sandbox API key (shown only once).
type Account struct {
	ID  string `json:"account_id"`
	Key string `json:"key"`
}

// Response is an answer of the service: the HTTP status, headers and raw body (JSON text, or the KuDE PDF).
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body (the {ok, data, meta, error} envelope) into v.
func (r *Response) JSON(v any) error { return json.Unmarshal(r.Body, v) }

// Delivery is a webhook POST the host must make: send Body with exactly Headers to URL, then report the outcome
// with ReportDelivery(ID, ok).
type Delivery struct {
	ID            string      `json:"id"`
	AccountID     string      `json:"account_id"`
	Environment   string      `json:"environment"`
	WebhookID     string      `json:"webhook_id"`
	URL           string      `json:"url"`
	EventID       string      `json:"event_id"`
	Body          string      `json:"body"`
	Headers       [][2]string `json:"headers"`
	Attempts      uint32      `json:"attempts"`
	NextAttemptAt int64       `json:"next_attempt_at"`
	FirstDueAt    int64       `json:"first_due_at"`
	Status        string      `json:"status"`
}

// NewService creates an in-memory service; opts may be nil.
func NewService(opts *ServiceOptions) (*Service, error) {
	s := &Service{}
	if opts != nil {
		s.opts = *opts
	}
	config, err := jsonIn(s.opts.Config, "config")
	if err != nil {
		return nil, err
	}
	cp, cn := inOpt(config)
	var out *C.kuatia_service
	var cerr *C.kuatia_error
	if err := errorOf(C.kuatia_service_new(cp, cn, &out, &cerr), cerr); err != nil {
		return nil, err
	}
	s.ptr = out
	runtime.SetFinalizer(s, (*Service).Close)
	return s, nil
}

// Close frees the service and everything it stores. It waits for calls in flight and may be called twice.
func (s *Service) Close() error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ptr != nil {
		C.kuatia_service_free(s.ptr)
		s.ptr = nil
		runtime.SetFinalizer(s, nil)
	}
	return nil
}

// use runs fn with the live handle, a fresh CSPRNG seed and the clock's Unix time.
func (s *Service) use(fn func(h *C.kuatia_service, now C.int64_t, seed []byte) error) error {
	if s == nil {
		return ErrServiceClosed
	}
	seed := make([]byte, C.KUATIA_SEED_LEN)
	if _, err := rand.Read(seed); err != nil {
		return err
	}
	now := time.Now
	if s.opts.Now != nil {
		now = s.opts.Now
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.ptr == nil {
		return ErrServiceClosed
	}
	err := fn(s.ptr, C.int64_t(now().Unix()), seed)
	runtime.KeepAlive(s)
	return err
}

// withSigner holds an optional signer open during fn (nil signer: a NULL handle).
func withSigner(sg *Signer, fn func(*C.kuatia_signer) error) error {
	if sg == nil {
		return fn(nil)
	}
	return sg.use(fn)
}

// CreateAccount creates an account with the built-in sandbox profile and a dk_test_ key (shown only here).
func (s *Service) CreateAccount(name string) (Account, error) {
	var acct Account
	var out C.kuatia_bytes
	err := s.use(func(h *C.kuatia_service, now C.int64_t, seed []byte) error {
		var cerr *C.kuatia_error
		np, nn := in([]byte(name))
		sp, sn := in(seed)
		return errorOf(C.kuatia_service_create_account(h, np, nn, now, sp, sn, &out, &cerr), cerr)
	})
	if err != nil {
		return acct, err
	}
	return acct, jsonOut(take(&out), &acct)
}

// CreateKey adds a dk_live_ (live) or dk_test_ key to an account and returns it (shown only here). An unknown
// account is StatusInvalidInput with code NOT_FOUND.
func (s *Service) CreateKey(accountID string, live bool) (string, error) {
	var out C.kuatia_bytes
	err := s.use(func(h *C.kuatia_service, now C.int64_t, seed []byte) error {
		var cerr *C.kuatia_error
		ap, an := in([]byte(accountID))
		sp, sn := in(seed)
		return errorOf(C.kuatia_service_create_key(h, ap, an, C.bool(live), now, sp, sn, &out, &cerr), cerr)
	})
	if err != nil {
		return "", err
	}
	return string(take(&out)), nil
}

// Handle answers one request of the /v1 API. HTTP errors (401, 404, 422, ...) are a Response, not an error;
// errors are for bad arguments only. A nil body is empty.
func (s *Service) Handle(method, path string, header http.Header, body []byte) (*Response, error) {
	names := make([]string, 0, len(header))
	for k := range header {
		names = append(names, k)
	}
	sort.Strings(names)
	pairs := [][2]string{}
	for _, k := range names {
		for _, v := range header[k] {
			pairs = append(pairs, [2]string{k, v})
		}
	}
	req, err := json.Marshal(map[string]any{"method": method, "path": path, "headers": pairs})
	if err != nil {
		return nil, err
	}
	var head, out C.kuatia_bytes
	err = s.use(func(h *C.kuatia_service, now C.int64_t, seed []byte) error {
		return withSigner(s.opts.SandboxSigner, func(sb *C.kuatia_signer) error {
			return withSigner(s.opts.ProductionSigner, func(pr *C.kuatia_signer) error {
				var cerr *C.kuatia_error
				rp, rn := in(req)
				bp, bn := inOpt(body)
				sp, sn := in(seed)
				st := C.kuatia_service_handle(h, rp, rn, bp, bn, now, sp, sn, sb, pr, &head, &out, &cerr)
				return errorOf(st, cerr)
			})
		})
	})
	if err != nil {
		return nil, err
	}
	var meta struct {
		Status  int         `json:"status"`
		Headers [][2]string `json:"headers"`
	}
	if err := jsonOut(take(&head), &meta); err != nil {
		take(&out)
		return nil, err
	}
	r := &Response{Status: meta.Status, Header: http.Header{}, Body: take(&out)}
	for _, kv := range meta.Headers {
		r.Header.Add(kv[0], kv[1])
	}
	return r, nil
}

// Tick advances the sandbox's simulated SIFEN to the clock's time (each request does it too), queueing webhooks.
func (s *Service) Tick() error {
	return s.use(func(h *C.kuatia_service, now C.int64_t, seed []byte) error {
		var cerr *C.kuatia_error
		sp, sn := in(seed)
		return errorOf(C.kuatia_service_tick(h, now, sp, sn, &cerr), cerr)
	})
}

// DueDeliveries lists the webhook deliveries due now, with their signed headers.
func (s *Service) DueDeliveries() ([]Delivery, error) {
	var out C.kuatia_bytes
	err := s.use(func(h *C.kuatia_service, now C.int64_t, _ []byte) error {
		var cerr *C.kuatia_error
		return errorOf(C.kuatia_service_due_deliveries(h, now, &out, &cerr), cerr)
	})
	if err != nil {
		return nil, err
	}
	due := []Delivery{}
	return due, jsonOut(take(&out), &due)
}

// ReportDelivery records one delivery attempt (ok: the receiver answered 2xx) and returns the delivery with its
// new Status: delivered, pending with the next NextAttemptAt, or failed. An unknown id is code NOT_FOUND.
func (s *Service) ReportDelivery(id string, ok bool) (*Delivery, error) {
	var out C.kuatia_bytes
	err := s.use(func(h *C.kuatia_service, _ C.int64_t, _ []byte) error {
		var cerr *C.kuatia_error
		ip, iN := in([]byte(id))
		return errorOf(C.kuatia_service_report_delivery(h, ip, iN, C.bool(ok), &out, &cerr), cerr)
	})
	if err != nil {
		return nil, err
	}
	var d Delivery
	return &d, jsonOut(take(&out), &d)
}
