package kuatia

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// serviceFlow is tests/fixtures/service_flow.json: the flow every binding drives through its typed Service calls.
type serviceFlow struct {
	Now     int64           `json:"now"`
	Factura json.RawMessage `json:"factura"`
	Webhook struct {
		URL    string   `json:"url"`
		Events []string `json:"events"`
	} `json:"webhook"`
	Simulate []string `json:"simulate"`
	List     struct {
		Filters struct {
			Status string `json:"status"`
			Limit  int    `json:"limit"`
		} `json:"filters"`
		Pages   [][]string `json:"pages"`
		HasMore []bool     `json:"has_more"`
	} `json:"list"`
	Invoice struct {
		Status      string `json:"status"`
		Numero      string `json:"numero"`
		Total       string `json:"total"`
		Moneda      string `json:"moneda"`
		ReceptorRUC string `json:"receptor_ruc"`
		Items       int    `json:"items"`
	} `json:"invoice"`
	XML struct {
		ContentType string   `json:"content_type"`
		Contains    []string `json:"contains"`
	} `json:"xml"`
	Deliveries struct {
		Count int    `json:"count"`
		Type  string `json:"type"`
	} `json:"deliveries"`
	Rotate struct {
		SecretPrefix string `json:"secret_prefix"`
	} `json:"rotate"`
	Redeliver struct {
		Status string `json:"status"`
	} `json:"redeliver"`
	BadFilter struct {
		Filters struct {
			Status string `json:"status"`
		} `json:"filters"`
		Status int    `json:"status"`
		Code   string `json:"code"`
	} `json:"bad_filter"`
	DeletedGet struct {
		Status int    `json:"status"`
		Code   string `json:"code"`
	} `json:"deleted_get"`
	Email struct {
		To              string      `json:"to"`
		TickAfter       int64       `json:"tick_after"`
		Status          string      `json:"status"`
		Messages        []flowEmail `json:"messages"`
		SubjectContains []string    `json:"subject_contains"`
		ResendTo        string      `json:"resend_to"`
		Resend          flowEmail   `json:"resend"`
		ResendBad       struct {
			To     string `json:"to"`
			Status int    `json:"status"`
			Code   string `json:"code"`
		} `json:"resend_bad"`
		InvoiceEmail struct {
			Status string `json:"status"`
			To     string `json:"to"`
		} `json:"invoice_email"`
		Archive struct {
			Mes         string   `json:"mes"`
			Magic       string   `json:"magic"`
			ContentType string   `json:"content_type"`
			Members     []string `json:"members"`
		} `json:"archive"`
	} `json:"email"`
}

// flowEmail is what the flow compares of a message of GET /v1/facturas/{id}/emails.
type flowEmail struct {
	Kind     string `json:"kind"`
	Status   string `json:"status"`
	To       string `json:"to"`
	Attempts int    `json:"attempts"`
}

type flowInvoice struct {
	ID       string `json:"id"`
	Status   string `json:"status"`
	CDC      string `json:"cdc"`
	Numero   string `json:"numero"`
	Total    string `json:"total"`
	Moneda   string `json:"moneda"`
	Receptor struct {
		RUC string `json:"ruc"`
	} `json:"receptor"`
	Items []json.RawMessage `json:"items"`
}

type flowWebhook struct {
	ID                      string  `json:"id"`
	URL                     string  `json:"url"`
	Secret                  string  `json:"secret"`
	PreviousSecretExpiresAt *string `json:"previous_secret_expires_at"`
}

type flowDelivery struct {
	ID      string `json:"id"`
	EventID string `json:"event_id"`
	Type    string `json:"type"`
	Status  string `json:"status"`
}

func loadServiceFlow(t *testing.T) serviceFlow {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(repoRoot, "tests", "fixtures", "service_flow.json"))
	if err != nil {
		t.Fatal(err)
	}
	var flow serviceFlow
	if err := json.Unmarshal(raw, &flow); err != nil {
		t.Fatal(err)
	}
	return flow
}

func TestSharedServiceFlow(t *testing.T) {
	flow := loadServiceFlow(t)
	signer, err := SandboxSigner()
	if err != nil {
		t.Fatal(err)
	}
	defer signer.Close()
	svc, err := NewService(&ServiceOptions{SandboxSigner: signer, Now: func() time.Time { return time.Unix(flow.Now, 0) }})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	acct, err := svc.CreateAccount("Empresa de prueba")
	if err != nil {
		t.Fatal(err)
	}
	h := http.Header{"Authorization": {"Bearer " + acct.Key}, "X-Environment": {"sandbox"}}

	var hook flowWebhook
	if err := svc.CreateWebhook(h, flow.Webhook.URL, flow.Webhook.Events, &hook); err != nil {
		t.Fatal(err)
	}
	var factura map[string]any
	if err := json.Unmarshal(flow.Factura, &factura); err != nil {
		t.Fatal(err)
	}
	created := []flowInvoice{}
	for i, sim := range flow.Simulate {
		factura["_simulate"] = sim
		body, _ := json.Marshal(factura)
		var inv flowInvoice
		if err := svc.CreateInvoice(h, body, fmt.Sprintf("flow-%d", i), &inv); err != nil {
			t.Fatal(err)
		}
		if inv.Status != sim {
			t.Fatalf("created %d: %s, want %s", i, inv.Status, sim)
		}
		created = append(created, inv)
	}

	// List with a filter, walking the cursor.
	var pages [][]string
	var more []bool
	filter := InvoiceFilter{Status: flow.List.Filters.Status, Limit: flow.List.Filters.Limit}
	for {
		p, err := svc.ListInvoices(h, filter)
		if err != nil {
			t.Fatal(err)
		}
		numeros := []string{}
		for _, d := range p.Data {
			var inv flowInvoice
			if err := json.Unmarshal(d, &inv); err != nil {
				t.Fatal(err)
			}
			numeros = append(numeros, inv.Numero)
		}
		pages = append(pages, numeros)
		more = append(more, p.Meta.HasMore)
		if !p.Meta.HasMore {
			break
		}
		filter.StartingAfter = p.Meta.NextCursor
	}
	if fmt.Sprint(pages, more) != fmt.Sprint(flow.List.Pages, flow.List.HasMore) {
		t.Fatalf("pages %v %v, want %v %v", pages, more, flow.List.Pages, flow.List.HasMore)
	}

	var inv flowInvoice
	if err := svc.GetInvoice(h, created[0].ID, &inv); err != nil {
		t.Fatal(err)
	}
	w := flow.Invoice
	if inv.Status != w.Status || inv.Numero != w.Numero || inv.Total != w.Total || inv.Moneda != w.Moneda ||
		inv.Receptor.RUC != w.ReceptorRUC || len(inv.Items) != w.Items || inv.CDC != created[0].CDC {
		t.Fatalf("invoice %+v, want %+v", inv, w)
	}
	xml, err := svc.InvoiceXML(h, inv.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, part := range append(flow.XML.Contains, inv.CDC) {
		if !strings.Contains(string(xml), part) {
			t.Fatalf("the XML lacks %q", part)
		}
	}
	r, err := svc.Handle("GET", "/v1/facturas/"+inv.ID+"/xml", h, nil)
	if err != nil || !strings.HasPrefix(r.Header.Get("Content-Type"), flow.XML.ContentType) {
		t.Fatalf("xml content type: %v %v", r, err)
	}

	// Webhooks: the deliveries, a rotation, a redelivery, the deletion.
	var got flowWebhook
	if err := svc.GetWebhook(h, hook.ID, &got); err != nil || got.URL != flow.Webhook.URL {
		t.Fatalf("webhook %+v %v", got, err)
	}
	log, err := svc.Deliveries(h, hook.ID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(log.Data) != flow.Deliveries.Count {
		t.Fatalf("%d deliveries, want %d", len(log.Data), flow.Deliveries.Count)
	}
	var first flowDelivery
	for _, d := range log.Data {
		if err := json.Unmarshal(d, &first); err != nil || first.Type != flow.Deliveries.Type {
			t.Fatalf("delivery %+v %v", first, err)
		}
	}
	var rotated flowWebhook
	if err := svc.RotateWebhook(h, hook.ID, &rotated); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(rotated.Secret, flow.Rotate.SecretPrefix) || rotated.Secret == hook.Secret ||
		rotated.PreviousSecretExpiresAt == nil {
		t.Fatalf("rotated %+v", rotated)
	}
	var again flowDelivery
	if err := svc.Redeliver(h, hook.ID, first.ID, &again); err != nil {
		t.Fatal(err)
	}
	if again.Status != flow.Redeliver.Status || again.EventID != first.EventID || again.ID == first.ID {
		t.Fatalf("redelivered %+v of %+v", again, first)
	}
	if err := svc.DeleteWebhook(h, hook.ID); err != nil {
		t.Fatal(err)
	}

	// Errors are the core's.
	var apiErr *APIError
	_, err = svc.ListInvoices(h, InvoiceFilter{Status: flow.BadFilter.Filters.Status})
	if !errors.As(err, &apiErr) || apiErr.Status != flow.BadFilter.Status || apiErr.Code != flow.BadFilter.Code {
		t.Fatalf("bad filter: %v", err)
	}
	err = svc.GetWebhook(h, hook.ID, &got)
	if !errors.As(err, &apiErr) || apiErr.Status != flow.DeletedGet.Status || apiErr.Code != flow.DeletedGet.Code {
		t.Fatalf("deleted webhook: %v", err)
	}
}

// TestSharedEmailFlow is the fixture's email part: the buyer's messages captured in-process, a resend, the month's
// archive.
func TestSharedEmailFlow(t *testing.T) {
	flow := loadServiceFlow(t)
	mail := flow.Email
	signer, err := SandboxSigner()
	if err != nil {
		t.Fatal(err)
	}
	defer signer.Close()
	clock := flow.Now
	svc, err := NewService(&ServiceOptions{SandboxSigner: signer, Now: func() time.Time { return time.Unix(clock, 0) }})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	acct, err := svc.CreateAccount("Empresa de prueba")
	if err != nil {
		t.Fatal(err)
	}
	h := http.Header{"Authorization": {"Bearer " + acct.Key}, "X-Environment": {"sandbox"}}
	var factura map[string]any
	if err := json.Unmarshal(flow.Factura, &factura); err != nil {
		t.Fatal(err)
	}
	factura["receptor"].(map[string]any)["email"] = mail.To
	body, _ := json.Marshal(factura)
	var inv flowInvoice
	if err := svc.CreateInvoice(h, body, "", &inv); err != nil {
		t.Fatal(err)
	}
	var none []flowEmail
	if err := svc.InvoiceEmails(h, inv.ID, &none); err != nil || len(none) != 0 {
		t.Fatalf("before the approval: %v %v", none, err)
	}

	// The simulated SIFEN approves it; the approval captures the buyer's message (nothing sends in-process).
	clock += mail.TickAfter
	if err := svc.Tick(); err != nil {
		t.Fatal(err)
	}
	var got struct {
		flowInvoice
		Email *struct {
			Status string `json:"status"`
			To     string `json:"to"`
		} `json:"email"`
	}
	if err := svc.GetInvoice(h, inv.ID, &got); err != nil || got.Status != mail.Status {
		t.Fatalf("after the tick: %+v %v", got, err)
	}
	type message struct {
		flowEmail
		ID      string `json:"id"`
		Subject string `json:"subject"`
		Body    string `json:"body"`
	}
	var messages []message
	if err := svc.InvoiceEmails(h, inv.ID, &messages); err != nil {
		t.Fatal(err)
	}
	compared := []flowEmail{}
	for _, m := range messages {
		compared = append(compared, m.flowEmail)
	}
	if !reflect.DeepEqual(compared, mail.Messages) {
		t.Fatalf("messages %+v, want %+v", compared, mail.Messages)
	}
	for _, part := range mail.SubjectContains {
		if !strings.Contains(messages[0].Subject, part) {
			t.Fatalf("subject %q lacks %q", messages[0].Subject, part)
		}
	}
	if !strings.Contains(messages[0].Body, inv.CDC) {
		t.Fatalf("body lacks the CDC: %q", messages[0].Body)
	}

	clock++
	var again message
	if err := svc.ResendEmail(h, inv.ID, mail.ResendTo, &again); err != nil || again.flowEmail != mail.Resend {
		t.Fatalf("resent %+v %v, want %+v", again, err, mail.Resend)
	}
	var apiErr *APIError
	err = svc.ResendEmail(h, inv.ID, mail.ResendBad.To, &again)
	if !errors.As(err, &apiErr) || apiErr.Status != mail.ResendBad.Status || apiErr.Code != mail.ResendBad.Code {
		t.Fatalf("bad address: %v", err)
	}
	var after []message
	if err := svc.InvoiceEmails(h, inv.ID, &after); err != nil {
		t.Fatal(err)
	}
	if len(after) != 2 || after[0].ID != messages[0].ID || after[1].ID != again.ID {
		t.Fatalf("after the resend: %+v", after)
	}
	if err := svc.GetInvoice(h, inv.ID, &got); err != nil || got.Email == nil ||
		got.Email.Status != mail.InvoiceEmail.Status || got.Email.To != mail.InvoiceEmail.To {
		t.Fatalf("invoice email %+v %v", got.Email, err)
	}

	zipped, err := svc.MonthArchive(h, mail.Archive.Mes)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(zipped, []byte(mail.Archive.Magic)) {
		t.Fatalf("not a zip: % x", zipped[:min(len(zipped), 8)])
	}
	zr, err := zip.NewReader(bytes.NewReader(zipped), int64(len(zipped)))
	if err != nil {
		t.Fatal(err)
	}
	names, want := []string{}, []string{}
	for _, f := range zr.File {
		names = append(names, f.Name)
	}
	for _, m := range mail.Archive.Members {
		want = append(want, strings.ReplaceAll(m, "{cdc}", inv.CDC))
	}
	if !reflect.DeepEqual(names, want) {
		t.Fatalf("members %v, want %v", names, want)
	}
	r, err := svc.Handle("GET", "/v1/archivo?mes="+mail.Archive.Mes, h, nil)
	if err != nil || r.Header.Get("Content-Type") != mail.Archive.ContentType {
		t.Fatalf("archive content type: %v %v", r, err)
	}
}
