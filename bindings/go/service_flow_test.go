package kuatia

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
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

func TestSharedServiceFlow(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(repoRoot, "tests", "fixtures", "service_flow.json"))
	if err != nil {
		t.Fatal(err)
	}
	var flow serviceFlow
	if err := json.Unmarshal(raw, &flow); err != nil {
		t.Fatal(err)
	}
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
