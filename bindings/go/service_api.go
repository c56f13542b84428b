package kuatia

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
)

// The typed calls of the /v1 routes: each builds the HTTP request for Handle and decodes the {ok, data, meta,
// error} envelope. Every rule (a bad filter value, a missing key) is the core's: an error answer comes back as
// *APIError with the core's code.

// APIError is an error answer of the /v1 API returned by the typed calls (Handle returns it as a Response): the
// HTTP Status, the registry Code, the Message and the findings in Details (422).
type APIError struct {
	Status  int       `json:"-"`
	Code    string    `json:"code"`
	Message string    `json:"message"`
	Details []Finding `json:"details,omitempty"`
}

func (e *APIError) Error() string { return fmt.Sprintf("%d %s: %s", e.Status, e.Code, e.Message) }

// Page is one page of a list: the resources and the list's meta. Pass NextCursor as StartingAfter for the next page.
type Page struct {
	Data []json.RawMessage `json:"data"`
	Meta PageMeta          `json:"meta"`
}

// PageMeta is the meta of a list: Total rows matching the filters, offset paging, and the cursor.
type PageMeta struct {
	Page       int    `json:"page"`
	PerPage    int    `json:"per_page"`
	Total      int    `json:"total"`
	HasMore    bool   `json:"has_more"`
	NextCursor string `json:"next_cursor"`
}

// InvoiceFilter are the filters and cursor of GET /v1/facturas; empty fields are left out. CreatedFrom and
// CreatedTo are RFC 3339; TipoDocumento 0 means any.
type InvoiceFilter struct {
	Status        string
	CreatedFrom   string
	CreatedTo     string
	CDC           string
	Numero        string
	ReceptorRUC   string
	TipoDocumento int
	Order         string
	Limit         int
	StartingAfter string
}

func (f InvoiceFilter) query() string {
	q := url.Values{}
	set := func(k, v string) {
		if v != "" {
			q.Set(k, v)
		}
	}
	set("status", f.Status)
	set("created_from", f.CreatedFrom)
	set("created_to", f.CreatedTo)
	set("cdc", f.CDC)
	set("numero", f.Numero)
	set("receptor_ruc", f.ReceptorRUC)
	if f.TipoDocumento != 0 {
		set("tipo_documento", strconv.Itoa(f.TipoDocumento))
	}
	set("order", f.Order)
	if f.Limit != 0 {
		set("limit", strconv.Itoa(f.Limit))
	}
	set("starting_after", f.StartingAfter)
	if len(q) == 0 {
		return ""
	}
	return "?" + encodeQuery(q)
}

func encodeQuery(q url.Values) string {
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := []string{}
	for _, k := range keys {
		for _, v := range q[k] {
			parts = append(parts, esc(k)+"="+esc(v))
		}
	}
	return strings.Join(parts, "&")
}

// esc percent-encodes a query component; a literal '+' goes as %2B (QueryEscape), a space as %20.
func esc(v string) string { return strings.ReplaceAll(url.QueryEscape(v), "+", "%20") }

// typed is Handle for the typed calls: unless header has Accept-Language, the request asks for the language chosen
// with SetLanguage, so an *APIError reads like every other error of the package. Handle sends what it is given.
func (s *Service) typed(method, path string, header http.Header, body []byte) (*Response, error) {
	if header.Get("Accept-Language") == "" {
		header = header.Clone()
		if header == nil {
			header = http.Header{}
		}
		header.Set("Accept-Language", Language())
	}
	return s.Handle(method, path, header, body)
}

// call runs one request and decodes a successful envelope into env; an error answer is *APIError.
func (s *Service) call(method, path string, header http.Header, body []byte, env any) error {
	r, err := s.typed(method, path, header, body)
	if err != nil {
		return err
	}
	return decodeEnvelope(r, env)
}

func decodeEnvelope(r *Response, env any) error {
	var e struct {
		OK    bool      `json:"ok"`
		Error *APIError `json:"error"`
	}
	if err := json.Unmarshal(r.Body, &e); err != nil {
		return fmt.Errorf("kuatia: HTTP %d answer is not the JSON envelope: %w", r.Status, err)
	}
	if !e.OK {
		if e.Error == nil {
			e.Error = &APIError{}
		}
		e.Error.Status = r.Status
		return e.Error
	}
	return json.Unmarshal(r.Body, env)
}

// data decodes the envelope's data into out.
func (s *Service) data(method, path string, header http.Header, body []byte, out any) error {
	var env struct {
		Data json.RawMessage `json:"data"`
	}
	if err := s.call(method, path, header, body, &env); err != nil {
		return err
	}
	return json.Unmarshal(env.Data, out)
}

func seg(id string) string { return url.PathEscape(id) }

// CreateInvoice is POST /v1/facturas with request (JSON); idempotencyKey may be empty. The created invoice is
// decoded into out (a map, a struct or *json.RawMessage).
func (s *Service) CreateInvoice(header http.Header, request []byte, idempotencyKey string, out any) error {
	if idempotencyKey != "" {
		header = header.Clone()
		header.Set("Idempotency-Key", idempotencyKey)
	}
	return s.data("POST", "/v1/facturas", header, request, out)
}

// GetInvoice is GET /v1/facturas/{id}: the full invoice resource (docs/api.md, "Invoice") decoded into out.
func (s *Service) GetInvoice(header http.Header, id string, out any) error {
	return s.data("GET", "/v1/facturas/"+seg(id), header, nil, out)
}

// InvoiceXML is GET /v1/facturas/{id}/xml: the signed rDE as sent to SIFEN.
func (s *Service) InvoiceXML(header http.Header, id string) ([]byte, error) {
	r, err := s.typed("GET", "/v1/facturas/"+seg(id)+"/xml", header, nil)
	if err != nil {
		return nil, err
	}
	if r.Status != http.StatusOK {
		return nil, decodeEnvelope(r, &struct{}{})
	}
	return r.Body, nil
}

// InvoiceEmails is GET /v1/facturas/{id}/emails: the invoice's messages to the buyer, oldest first (id, kind, to,
// subject, body, status, reason, attempts, created_at, next_attempt_at, log), decoded into out (a slice of maps or
// structs, or *json.RawMessage). In-process nothing is sent: every message is "captured".
func (s *Service) InvoiceEmails(header http.Header, id string, out any) error {
	return s.data("GET", "/v1/facturas/"+seg(id)+"/emails", header, nil, out)
}

// ResendEmail is POST /v1/facturas/{id}/email: an approved invoice's message queued again, to the address to, or
// to the document's receptor.email when to is empty; the new message is decoded into out. Not approved is
// *APIError 409 KUDE_NOT_AVAILABLE, an address SIFEN would refuse 422 VALIDATION_ERROR.
func (s *Service) ResendEmail(header http.Header, id, to string, out any) error {
	var body []byte
	if to != "" {
		var err error
		if body, err = json.Marshal(map[string]string{"to": to}); err != nil {
			return err
		}
	}
	return s.data("POST", "/v1/facturas/"+seg(id)+"/email", header, body, out)
}

// MonthArchive is GET /v1/archivo?mes=YYYY-MM: the zip of the month's signed XMLs and KuDEs, index.csv and
// manifest.json. A bad month, or one of more than archive_limit documents (Config, default 500), is *APIError 400
// INVALID_QUERY.
func (s *Service) MonthArchive(header http.Header, mes string) ([]byte, error) {
	r, err := s.typed("GET", "/v1/archivo?"+encodeQuery(url.Values{"mes": {mes}}), header, nil)
	if err != nil {
		return nil, err
	}
	if r.Status != http.StatusOK {
		return nil, decodeEnvelope(r, &struct{}{})
	}
	return r.Body, nil
}

// ListInvoices is GET /v1/facturas with filters and cursor paging. A bad value is *APIError INVALID_QUERY.
func (s *Service) ListInvoices(header http.Header, filter InvoiceFilter) (*Page, error) {
	var p Page
	if err := s.call("GET", "/v1/facturas"+filter.query(), header, nil, &p); err != nil {
		return nil, err
	}
	return &p, nil
}

// CreateWebhook is POST /v1/webhooks; the answer (with the signing secret, shown only here) is decoded into out.
func (s *Service) CreateWebhook(header http.Header, webhookURL string, events []string, out any) error {
	body, err := json.Marshal(map[string]any{"url": webhookURL, "events": events})
	if err != nil {
		return err
	}
	return s.data("POST", "/v1/webhooks", header, body, out)
}

// GetWebhook is GET /v1/webhooks/{id} (no secret), decoded into out.
func (s *Service) GetWebhook(header http.Header, id string, out any) error {
	return s.data("GET", "/v1/webhooks/"+seg(id), header, nil, out)
}

// DeleteWebhook is DELETE /v1/webhooks/{id}: no event reaches it any more, its pending deliveries are cancelled.
func (s *Service) DeleteWebhook(header http.Header, id string) error {
	var out struct {
		Deleted bool `json:"deleted"`
	}
	return s.data("DELETE", "/v1/webhooks/"+seg(id), header, nil, &out)
}

// RotateWebhook is POST /v1/webhooks/{id}/rotate: the webhook with its new secret and previous_secret_expires_at
// (both secrets sign until then), decoded into out.
func (s *Service) RotateWebhook(header http.Header, id string, out any) error {
	return s.data("POST", "/v1/webhooks/"+seg(id)+"/rotate", header, nil, out)
}

// Deliveries is GET /v1/webhooks/{id}/deliveries: the delivery log, newest first (limit 0: the default).
func (s *Service) Deliveries(header http.Header, id string, page, limit int) (*Page, error) {
	q := url.Values{}
	if page != 0 {
		q.Set("page", strconv.Itoa(page))
	}
	if limit != 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	path := "/v1/webhooks/" + seg(id) + "/deliveries"
	if len(q) > 0 {
		path += "?" + encodeQuery(q)
	}
	var p Page
	if err := s.call("GET", path, header, nil, &p); err != nil {
		return nil, err
	}
	return &p, nil
}

// Redeliver is POST /v1/webhooks/{id}/deliveries/{delivery}/redeliver: the new delivery of the same event,
// decoded into out.
func (s *Service) Redeliver(header http.Header, webhookID, deliveryID string, out any) error {
	return s.data("POST", "/v1/webhooks/"+seg(webhookID)+"/deliveries/"+seg(deliveryID)+"/redeliver", header, nil, out)
}
