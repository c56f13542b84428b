package kuatia

/*
#include <kuatia.h>
*/
import "C"

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"time"
)

// TimeLayout is how kuatia writes Paraguay local times: "2006-01-02T15:04:05".
const TimeLayout = "2006-01-02T15:04:05"

// paraguay is America/Asuncion, or UTC-3 (the country's permanent offset since October 2024) when the system
// has no time zone database.
var paraguay = func() *time.Location {
	if loc, err := time.LoadLocation("America/Asuncion"); err == nil {
		return loc
	}
	return time.FixedZone("PYT", -3*60*60)
}()

// ParaguayTime parses "YYYY-MM-DDThh:mm:ss" as Paraguay local time.
func ParaguayTime(s string) (time.Time, error) { return time.ParseInLocation(TimeLayout, s, paraguay) }

// FormatParaguayTime writes t as Paraguay local time, the form kuatia reads.
func FormatParaguayTime(t time.Time) string { return t.In(paraguay).Format(TimeLayout) }

// Options are the context of a call on a request: the emitter profile and the time. The core has no clock.
type Options struct {
	// Profile is the emitter profile (JSON value or raw JSON); nil is the built-in sandbox profile (TEST ONLY).
	Profile any
	// Now is the issuing time; the zero value means time.Now(). It is passed as Paraguay local time.
	Now time.Time
}

// args converts the options into C inputs (kept alive by the returned slices).
func (o *Options) args() (profile []byte, now []byte, err error) {
	var opt Options
	if o != nil {
		opt = *o
	}
	profile, err = jsonIn(opt.Profile, "profile")
	if err != nil {
		return nil, nil, err
	}
	t := opt.Now
	if t.IsZero() {
		t = time.Now()
	}
	return profile, []byte(FormatParaguayTime(t)), nil
}

// RandomSecurityCode draws a security code (dCodSeg) from crypto/rand; the library maps any uint32 into
// 1..999999999. Never use a counter: a predictable code lets others guess CDCs.
func RandomSecurityCode() (uint32, error) {
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		return 0, fmt.Errorf("kuatia: security code: %w", err)
	}
	return binary.LittleEndian.Uint32(b[:]), nil
}

// RUCCheckDigit computes the mod-11 check digit (DV) of a RUC body: RUCCheckDigit("80069563") == 1.
func RUCCheckDigit(body string) (int, error) {
	var dv C.uint8_t
	var cerr *C.kuatia_error
	p, n := in([]byte(body))
	if err := errorOf(C.kuatia_ruc_dv(p, n, &dv, &cerr), cerr); err != nil {
		return 0, err
	}
	return int(dv), nil
}

// RUCCheck returns nil when ruc ("80069563-1") is well formed with the right DV, an *Error (INVALID_RUC) otherwise.
func RUCCheck(ruc string) error {
	var cerr *C.kuatia_error
	p, n := in([]byte(ruc))
	return errorOf(C.kuatia_ruc_check(p, n, &cerr), cerr)
}

// CDCFields are the parts of a CDC.
type CDCFields struct {
	TipoDocumento     int    `json:"tipo_documento"`
	RUC               string `json:"ruc"`
	Establecimiento   int    `json:"establecimiento"`
	Punto             int    `json:"punto"`
	Numero            int    `json:"numero"`
	TipoContribuyente int    `json:"tipo_contribuyente"`
	Fecha             string `json:"fecha"`
	TipoEmision       int    `json:"tipo_emision"`
	CodigoSeguridad   int    `json:"codigo_seguridad"`
}

// CDCParts is a checked CDC: the 44 digits, the grouped form, the DV and the fields.
type CDCParts struct {
	CDC     string `json:"cdc"`
	Grouped string `json:"grouped"`
	DV      int    `json:"dv"`
	CDCFields
}

// CDCBuild builds the 44-digit CDC from its fields (a CDCFields, a map, or raw JSON).
func CDCBuild(fields any) (string, error) {
	js, err := jsonIn(fields, "fields")
	if err != nil {
		return "", err
	}
	var out C.kuatia_bytes
	var cerr *C.kuatia_error
	p, n := in(js)
	if err := errorOf(C.kuatia_cdc_build(p, n, &out, &cerr), cerr); err != nil {
		return "", err
	}
	return string(take(&out)), nil
}

// CDCParse checks a CDC and returns its parts; *Error with code INVALID_CDC when malformed.
func CDCParse(cdc string) (*CDCParts, error) {
	var out C.kuatia_bytes
	var cerr *C.kuatia_error
	p, n := in([]byte(cdc))
	if err := errorOf(C.kuatia_cdc_parse(p, n, &out, &cerr), cerr); err != nil {
		return nil, err
	}
	parts := new(CDCParts)
	return parts, jsonOut(take(&out), parts)
}

// Report is a validation report: OK is true when Errors is empty.
type Report struct {
	OK     bool      `json:"ok"`
	Errors []Finding `json:"errors"`
}

// requestCall runs one of the (request, profile, now, ..., out, err) entry points.
func requestCall(request any, opt *Options, fn func(req, prof, now []byte, cerr **C.kuatia_error) C.enum_kuatia_status) error {
	req, err := jsonIn(request, "request")
	if err != nil {
		return err
	}
	if req == nil {
		req = []byte{}
	}
	prof, now, err := opt.args()
	if err != nil {
		return err
	}
	var cerr *C.kuatia_error
	return errorOf(fn(req, prof, now, &cerr), cerr)
}

// Validate checks a request (the body of POST /v1/facturas) against the profile at the time in opt (nil: sandbox
// profile, now). A request with problems gives a Report with OK false; errors are for bad arguments.
func Validate(request any, opt *Options) (*Report, error) {
	var out C.kuatia_bytes
	err := requestCall(request, opt, func(req, prof, now []byte, cerr **C.kuatia_error) C.enum_kuatia_status {
		rp, rn := in(req)
		pp, pn := inOpt(prof)
		np, nn := in(now)
		return C.kuatia_invoice_validate(rp, rn, pp, pn, np, nn, &out, cerr)
	})
	if err != nil {
		return nil, err
	}
	report, err := Localize(take(&out), "")
	if err != nil {
		return nil, err
	}
	r := new(Report)
	if err := jsonOut(report, r); err != nil {
		return nil, err
	}
	for i := range r.Errors {
		if r.Errors[i].Rule == "" {
			r.Errors[i].Rule = "unclassified"
		}
	}
	if r.Errors == nil {
		r.Errors = []Finding{}
	}
	return r, nil
}

// ItemTotals are the computed values of one item ("valor": prices, discounts, total; "iva": rate, base, tax).
type ItemTotals struct {
	Valor map[string]any `json:"valor"`
	IVA   map[string]any `json:"iva"`
}

// Totals are a request's item values and document totals; amounts are decimal strings. Totales is nil for
// documents without totals (remisión).
type Totals struct {
	TipoDocumento int            `json:"tipo_documento"`
	Moneda        string         `json:"moneda"`
	Items         []ItemTotals   `json:"items"`
	Totales       map[string]any `json:"totales"`
}

// ComputeTotals computes the item values and document totals of a request.
func ComputeTotals(request any) (*Totals, error) {
	req, err := jsonIn(request, "request")
	if err != nil {
		return nil, err
	}
	var out C.kuatia_bytes
	var cerr *C.kuatia_error
	p, n := in(req)
	if err := errorOf(C.kuatia_invoice_totals(p, n, &out, &cerr), cerr); err != nil {
		return nil, err
	}
	t := new(Totals)
	return t, jsonOut(take(&out), t)
}

// NumberingKey names a numbering sequence: reserve the next number of it before Issue.
type NumberingKey struct {
	TipoDocumento   int    `json:"tipo_documento"`
	Timbrado        string `json:"timbrado"`
	Establecimiento string `json:"establecimiento"`
	Punto           string `json:"punto"`
}

// Numbering returns the sequence the request draws its number from (INVALID_TIMBRADO when no stamp covers it).
func Numbering(request any, opt *Options) (*NumberingKey, error) {
	var out C.kuatia_bytes
	err := requestCall(request, opt, func(req, prof, now []byte, cerr **C.kuatia_error) C.enum_kuatia_status {
		rp, rn := in(req)
		pp, pn := inOpt(prof)
		np, nn := in(now)
		return C.kuatia_invoice_numbering_key(rp, rn, pp, pn, np, nn, &out, cerr)
	})
	if err != nil {
		return nil, err
	}
	k := new(NumberingKey)
	return k, jsonOut(take(&out), k)
}

// PreviewXML builds the unsigned rDE the request would become (no signature, no QR) with the CDC Issue would give.
func PreviewXML(request any, numero, codigoSeguridad uint32, opt *Options) (string, error) {
	var out C.kuatia_bytes
	err := requestCall(request, opt, func(req, prof, now []byte, cerr **C.kuatia_error) C.enum_kuatia_status {
		rp, rn := in(req)
		pp, pn := inOpt(prof)
		np, nn := in(now)
		return C.kuatia_invoice_preview_xml(rp, rn, pp, pn, np, nn, C.uint32_t(numero), C.uint32_t(codigoSeguridad), &out, cerr)
	})
	if err != nil {
		return "", err
	}
	return string(take(&out)), nil
}

// Issued is an issued document: the signed rDE and its CDC, number, QR, digest and issuing time.
type Issued struct {
	XML          string `json:"-"`
	CDC          string `json:"cdc"`
	Numero       string `json:"numero"`
	QR           string `json:"qr"`
	DigestValue  string `json:"digest_value"`
	FechaEmision string `json:"fecha_emision"`
}

// Issue validates, builds, signs and QR-completes one document. numero is reserved by the caller from the
// sequence Numbering names; codigoSeguridad must come from RandomSecurityCode (or another CSPRNG). A request with
// problems fails with an *Error (StatusInvalidInput) listing every finding.
func Issue(request any, signer *Signer, numero, codigoSeguridad uint32, opt *Options) (*Issued, error) {
	var xml, summary C.kuatia_bytes
	err := signer.use(func(s *C.kuatia_signer) error {
		return requestCall(request, opt, func(req, prof, now []byte, cerr **C.kuatia_error) C.enum_kuatia_status {
			rp, rn := in(req)
			pp, pn := inOpt(prof)
			np, nn := in(now)
			return C.kuatia_invoice_issue(rp, rn, pp, pn, s, np, nn, C.uint32_t(numero), C.uint32_t(codigoSeguridad),
				&xml, &summary, cerr)
		})
	})
	if err != nil {
		return nil, err
	}
	doc := &Issued{XML: string(take(&xml))}
	return doc, jsonOut(take(&summary), doc)
}

// Verification is the verdict on a signature and the library's report of it.
type Verification struct {
	Valid              bool           `json:"valid"`
	ReferenceID        string         `json:"reference_id"`
	DigestOK           bool           `json:"digest_ok"`
	SignatureOK        bool           `json:"signature_ok"`
	Certificate        map[string]any `json:"certificate"`
	CertificateValidAt *bool          `json:"certificate_valid_at"`
	Error              *Finding       `json:"error"`
}

// Verify checks the first XMLDSig signature of xml; a non-zero at is when the certificate must have been valid.
// An invalid signature is a Verification with Valid false, not an error.
func Verify(xml string, at time.Time) (*Verification, error) {
	var atText []byte
	if !at.IsZero() {
		atText = []byte(FormatParaguayTime(at))
	}
	var valid C.bool
	var out C.kuatia_bytes
	var cerr *C.kuatia_error
	xp, xn := in([]byte(xml))
	ap, an := inOpt(atText)
	if err := errorOf(C.kuatia_xml_verify(xp, xn, ap, an, &valid, &out, &cerr), cerr); err != nil {
		return nil, err
	}
	v := new(Verification)
	if err := jsonOut(take(&out), v); err != nil {
		return nil, err
	}
	v.Valid = bool(valid)
	return v, nil
}

// QRBuild builds dCarQR from its parts ({"cdc","fecha_emision","receptor","total","total_iva","items",
// "digest_value","csc_id","csc","ambiente"}), as a map, a struct or raw JSON.
func QRBuild(fields any) (string, error) {
	js, err := jsonIn(fields, "fields")
	if err != nil {
		return "", err
	}
	var out C.kuatia_bytes
	var cerr *C.kuatia_error
	p, n := in(js)
	if err := errorOf(C.kuatia_qr_build(p, n, &out, &cerr), cerr); err != nil {
		return "", err
	}
	return string(take(&out)), nil
}

// QRParse returns the parts of a dCarQR; with a non-empty csc the map also holds "hash_ok".
func QRParse(dcarqr, csc string) (map[string]any, error) {
	var cscIn []byte
	if csc != "" {
		cscIn = []byte(csc)
	}
	var out C.kuatia_bytes
	var cerr *C.kuatia_error
	qp, qn := in([]byte(dcarqr))
	cp, cn := inOpt(cscIn)
	if err := errorOf(C.kuatia_qr_parse(qp, qn, cp, cn, &out, &cerr), cerr); err != nil {
		return nil, err
	}
	parts := map[string]any{}
	return parts, jsonOut(take(&out), &parts)
}

// KudeFormat is the paper format of the KuDE.
type KudeFormat int

// The formats of include/kuatia.h.
const (
	KudeA4     KudeFormat = C.KUATIA_KUDE_FORMAT_A4
	KudeTicket KudeFormat = C.KUATIA_KUDE_FORMAT_TICKET
)

// KudePDF renders the KuDE of a signed rDE as PDF; preview adds a "not valid" watermark.
func KudePDF(xml string, format KudeFormat, preview bool) ([]byte, error) {
	var out C.kuatia_bytes
	var cerr *C.kuatia_error
	p, n := in([]byte(xml))
	st := C.kuatia_kude_pdf(p, n, C.uint32_t(format), C.bool(preview), &out, &cerr)
	if err := errorOf(st, cerr); err != nil {
		return nil, err
	}
	return take(&out), nil
}
