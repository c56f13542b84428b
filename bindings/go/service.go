package kuatia

/*
#include <kuatia.h>
*/
import "C"

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
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
	// invoice created without _simulate), max_per_page, archive_limit (the most documents MonthArchive zips), and
	// for production invoices sifen_mode ("sync" or "lote"), sifen_lot_poll_after, sifen_lease and sifen_retry (the
	// back-off in seconds). nil: the defaults.
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

// SifenJob is a SIFEN call the host must make for production invoices: POST Body with ContentType to URL over
// TLS 1.2 with the certificate of the account's emitter, then pass the job back to ReportSifen with what came of
// it. Service is recibe, recibe-lote, consulta or consulta-lote; Invoices are the fact_ ids concerned.
type SifenJob struct {
	AccountID   string   `json:"account_id"`
	Service     string   `json:"service"`
	URL         string   `json:"url"`
	ContentType string   `json:"content_type"`
	Body        string   `json:"body"`
	DID         uint64   `json:"d_id"`
	Invoices    []string `json:"invoices"`
}

// SifenOutcome is what came of a SifenJob (kuatia_sifen_outcome); build it with SifenAnswer, SifenTimeout or
// SifenFailed. The zero value is not an outcome.
type SifenOutcome struct {
	kind    C.uint32_t
	valid   bool
	status  int
	body    []byte
	message string
}

// SifenAnswer is an HTTP answer from SIFEN (or whatever stands in front of it): the status and the raw body bytes
// as received.
func SifenAnswer(status int, body []byte) SifenOutcome {
	return SifenOutcome{kind: C.KUATIA_SIFEN_OUTCOME_ANSWER, valid: true, status: status, body: body}
}

// SifenTimeout is no answer within the host's timeout: the request may or may not have been processed.
func SifenTimeout() SifenOutcome {
	return SifenOutcome{kind: C.KUATIA_SIFEN_OUTCOME_TIMEOUT, valid: true}
}

// SifenFailed is a call that failed before any answer (DNS, connection refused, TLS handshake), with the
// transport's message.
func SifenFailed(message string) SifenOutcome {
	return SifenOutcome{kind: C.KUATIA_SIFEN_OUTCOME_FAILED, valid: true, message: message}
}

// SifenProgress is where an invoice stands after a report: its Status (pending, sent, approved, rejected, ...)
// and its Transmission.
type SifenProgress struct {
	InvoiceID    string            `json:"invoice_id"`
	Status       string            `json:"status"`
	Transmission SifenTransmission `json:"transmission"`
}

// SifenTransmission is the next SIFEN call of an invoice: Next is idle (nothing left to do), send, query or
// query_lot, due at DueAt (Unix seconds), after Attempts failures in a row, the last one LastError.
type SifenTransmission struct {
	Next      string `json:"next"`
	DueAt     int64  `json:"due_at"`
	Attempts  uint32 `json:"attempts"`
	Lote      string `json:"lote,omitempty"`
	LastError string `json:"last_error,omitempty"`
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

// SetProductionProfile sets the emitter profile (as for Validate's Options.Profile) the account's dk_live_ keys
// issue with; nil: the built-in sandbox profile in SIFEN's test environment (TEST ONLY). An unknown account is
// code NOT_FOUND; a bad profile is StatusInvalidInput with paths under "profile".
func (s *Service) SetProductionProfile(accountID string, profile any) error {
	p, err := jsonIn(profile, "profile")
	if err != nil {
		return err
	}
	return s.use(func(h *C.kuatia_service, _ C.int64_t, _ []byte) error {
		var cerr *C.kuatia_error
		ap, an := in([]byte(accountID))
		pp, pn := inOpt(p)
		return errorOf(C.kuatia_service_set_production_profile(h, ap, an, pp, pn, &cerr), cerr)
	})
}

// DueSifen lists the SIFEN calls due now for production invoices (at most limit invoices). Each job is recorded
// as "query by CDC next" until reported, so a job never reported is not resent blindly.
func (s *Service) DueSifen(limit int) ([]SifenJob, error) {
	if limit < 0 {
		return nil, fmt.Errorf("kuatia: limit %d is negative", limit)
	}
	var out C.kuatia_bytes
	err := s.use(func(h *C.kuatia_service, now C.int64_t, seed []byte) error {
		var cerr *C.kuatia_error
		sp, sn := in(seed)
		return errorOf(C.kuatia_service_due_sifen(h, now, sp, sn, C.size_t(limit), &out, &cerr), cerr)
	})
	if err != nil {
		return nil, err
	}
	jobs := []SifenJob{}
	return jobs, jsonOut(take(&out), &jobs)
}

// ReportSifen reports what came of a job of DueSifen and returns where each of its invoices stands. SIFEN's
// verdicts approve or reject the invoices (queueing their webhooks); anything else schedules a query by CDC after
// the sifen_retry back-off.
func (s *Service) ReportSifen(job SifenJob, outcome SifenOutcome) ([]SifenProgress, error) {
	if !outcome.valid {
		return nil, errors.New("kuatia: outcome: use SifenAnswer, SifenTimeout or SifenFailed")
	}
	if outcome.status < 0 || outcome.status > 0xFFFF {
		return nil, fmt.Errorf("kuatia: outcome: HTTP status %d out of range", outcome.status)
	}
	j, err := json.Marshal(job)
	if err != nil {
		return nil, fmt.Errorf("kuatia: job: %w", err)
	}
	var body, message []byte
	switch outcome.kind {
	case C.KUATIA_SIFEN_OUTCOME_ANSWER:
		body = outcome.body
	case C.KUATIA_SIFEN_OUTCOME_FAILED:
		message = []byte(outcome.message)
	}
	var out C.kuatia_bytes
	err = s.use(func(h *C.kuatia_service, now C.int64_t, seed []byte) error {
		var cerr *C.kuatia_error
		jp, jn := in(j)
		bp, bn := in(body)
		mp, mn := in(message)
		sp, sn := in(seed)
		st := C.kuatia_service_report_sifen(h, jp, jn, outcome.kind, C.uint16_t(outcome.status), bp, bn, mp, mn, now,
			sp, sn, &out, &cerr)
		return errorOf(st, cerr)
	})
	if err != nil {
		return nil, err
	}
	progress := []SifenProgress{}
	return progress, jsonOut(take(&out), &progress)
}
