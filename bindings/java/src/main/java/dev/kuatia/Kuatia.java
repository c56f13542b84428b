package dev.kuatia;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.jna.Memory;
import com.sun.jna.ptr.ByteByReference;
import com.sun.jna.ptr.PointerByReference;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Paraguayan electronic invoices (SIFEN / e-Kuatia) from Java: static, thread-safe wrappers over libkuatia.
 *
 * <p>Inputs are Java strings (sent as UTF-8) and JSON text; results are strings, {@code byte[]}, small records or
 * Jackson trees. Every failure is a {@link KuatiaException} with a stable code, the field path and every finding;
 * a {@code null} where a value is required is a {@link NullPointerException}. Times are Paraguay local time
 * {@code YYYY-MM-DDThh:mm:ss} supplied by the caller (see {@link #nowInParaguay()}).
 */
public final class Kuatia {
    private Kuatia() {}

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final DateTimeFormatter LOCAL = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss");
    private static final ZoneId ASUNCION = ZoneId.of("America/Asuncion");

    /** The version of the loaded libkuatia ({@code KUATIA_VERSION}). */
    public static String version() {
        return Ffi.cString(Ffi.LIB.kuatia_version());
    }

    /** Every error code kuatia answers with, as {@code [{"code", "description"}]}: the core's one registry. */
    public static JsonNode codes() {
        return Ffi.jsonOf((out, err) -> Ffi.LIB.kuatia_error_codes(out, err));
    }

    /** The current time in Asunción as {@code YYYY-MM-DDThh:mm:ss}, the form {@code now} arguments take. */
    public static String nowInParaguay() {
        return LocalDateTime.now(ASUNCION).format(LOCAL);
    }

    /**
     * The mod-11 check digit (DV) of a RUC body: {@code rucDv("80069563") == 1}.
     *
     * @throws KuatiaException {@code INVALID_RUC} for an empty, too long or non-numeric body
     */
    public static int rucDv(String body) {
        try (Ffi.In b = Ffi.In.text(body, "body")) {
            ByteByReference dv = new ByteByReference();
            PointerByReference err = new PointerByReference();
            Ffi.check(Ffi.LIB.kuatia_ruc_dv(b.ptr, b.len, dv, err), err);
            return Byte.toUnsignedInt(dv.getValue());
        }
    }

    /**
     * Checks a complete RUC such as {@code 80069563-1}.
     *
     * @throws KuatiaException {@code INVALID_RUC} when malformed or when the DV does not match
     */
    public static void rucCheck(String ruc) {
        try (Ffi.In r = Ffi.In.text(ruc, "ruc")) {
            PointerByReference err = new PointerByReference();
            Ffi.check(Ffi.LIB.kuatia_ruc_check(r.ptr, r.len, err), err);
        }
    }

    /** Whether {@code ruc} is a valid complete RUC ({@link #rucCheck} without the exception). */
    public static boolean isValidRuc(String ruc) {
        try {
            rucCheck(ruc);
            return true;
        } catch (KuatiaException e) {
            if (e.status() != Status.INVALID_INPUT) {
                throw e;
            }
            return false;
        }
    }

    /**
     * Builds the 44-character CDC from its fields as JSON ({@code tipo_documento}, {@code ruc},
     * {@code establecimiento}, {@code punto}, {@code numero}, {@code tipo_contribuyente}, {@code fecha}
     * {@code YYYY-MM-DD}, {@code tipo_emision}, {@code codigo_seguridad}).
     */
    public static String cdcBuild(String fieldsJson) {
        try (Ffi.In f = Ffi.In.text(fieldsJson, "fieldsJson")) {
            return Ffi.textOf((out, err) -> Ffi.LIB.kuatia_cdc_build(f.ptr, f.len, out, err));
        }
    }

    /**
     * Checks a CDC and returns its parts ({@code cdc}, {@code grouped}, {@code dv} and the fields of
     * {@link #cdcBuild}).
     *
     * @throws KuatiaException {@code INVALID_CDC} when malformed
     */
    public static JsonNode cdcParse(String cdc) {
        try (Ffi.In c = Ffi.In.text(cdc, "cdc")) {
            return Ffi.jsonOf((out, err) -> Ffi.LIB.kuatia_cdc_parse(c.ptr, c.len, out, err));
        }
    }

    /**
     * Validates a request (the JSON body of {@code POST /v1/facturas}) against the emitter profile
     * ({@code null}: the built-in sandbox profile) at {@code now}. Findings are the result, not an exception.
     *
     * @throws KuatiaException for a malformed profile or {@code now}
     */
    public static Report validate(String requestJson, String profileJson, String now) {
        try (Ffi.In r = Ffi.In.text(requestJson, "requestJson"); Ffi.In p = Ffi.In.optText(profileJson);
                Ffi.In n = Ffi.In.text(now, "now")) {
            return Report.parse(localize(Ffi.textOf((out, err) ->
                    Ffi.LIB.kuatia_invoice_validate(r.ptr, r.len, p.ptr, p.len, n.ptr, n.len, out, err)), null));
        }
    }

    /**
     * Item values and document totals of a request: {@code {"tipo_documento","moneda","items":[..],"totales":{..}}},
     * amounts as decimal strings.
     */
    public static JsonNode totals(String requestJson) {
        try (Ffi.In r = Ffi.In.text(requestJson, "requestJson")) {
            return Ffi.jsonOf((out, err) -> Ffi.LIB.kuatia_invoice_totals(r.ptr, r.len, out, err));
        }
    }

    /**
     * The numbering sequence the request draws from ({@code {"tipo_documento","timbrado","establecimiento",
     * "punto"}}), so the host can reserve the next number before {@link #issue}.
     *
     * @throws KuatiaException {@code INVALID_TIMBRADO} when no stamp covers the document
     */
    public static JsonNode numberingKey(String requestJson, String profileJson, String now) {
        try (Ffi.In r = Ffi.In.text(requestJson, "requestJson"); Ffi.In p = Ffi.In.optText(profileJson);
                Ffi.In n = Ffi.In.text(now, "now")) {
            return Ffi.jsonOf((out, err) ->
                    Ffi.LIB.kuatia_invoice_numbering_key(r.ptr, r.len, p.ptr, p.len, n.ptr, n.len, out, err));
        }
    }

    /** The unsigned {@code rDE} XML of a request (no signature, no QR), with the CDC issuing would give. */
    public static String previewXml(String requestJson, String profileJson, String now, int numero,
            int codigoSeguridad) {
        try (Ffi.In r = Ffi.In.text(requestJson, "requestJson"); Ffi.In p = Ffi.In.optText(profileJson);
                Ffi.In n = Ffi.In.text(now, "now")) {
            return Ffi.textOf((out, err) -> Ffi.LIB.kuatia_invoice_preview_xml(r.ptr, r.len, p.ptr, p.len, n.ptr,
                    n.len, numero, codigoSeguridad, out, err));
        }
    }

    /**
     * Issues one document: validates, builds, signs and adds the QR.
     *
     * @param profileJson the emitter profile; {@code null} means the sandbox profile (TEST ONLY)
     * @param numero the next number (1..9999999) of the sequence {@link #numberingKey} names, reserved by the host
     * @param codigoSeguridad a draw from a cryptographically secure generator, read as an unsigned 32-bit value
     *     (any {@code SecureRandom.nextInt()} will do); a predictable code lets others guess CDCs
     * @throws KuatiaException {@code INVALID_INPUT} with every finding, or a signing failure
     */
    public static Issued issue(String requestJson, String profileJson, Signer signer, String now, int numero,
            int codigoSeguridad) {
        Objects.requireNonNull(signer, "signer");
        try (Ffi.In r = Ffi.In.text(requestJson, "requestJson"); Ffi.In p = Ffi.In.optText(profileJson);
                Ffi.In n = Ffi.In.text(now, "now")) {
            KuatiaLibrary.Bytes xml = new KuatiaLibrary.Bytes();
            KuatiaLibrary.Bytes json = new KuatiaLibrary.Bytes();
            try {
                PointerByReference err = new PointerByReference();
                int status = signer.use(s -> Ffi.LIB.kuatia_invoice_issue(r.ptr, r.len, p.ptr, p.len, s, n.ptr,
                        n.len, numero, codigoSeguridad, xml, json, err));
                Ffi.check(status, err);
                JsonNode summary = Ffi.parse(new String(Ffi.copy(json), StandardCharsets.UTF_8));
                return new Issued(new String(Ffi.copy(xml), StandardCharsets.UTF_8), summary.path("cdc").asText(),
                        summary.path("numero").asText(), summary.path("qr").asText(),
                        summary.path("digest_value").asText(), summary.path("fecha_emision").asText());
            } finally {
                Ffi.LIB.kuatia_bytes_free(xml);
                Ffi.LIB.kuatia_bytes_free(json);
            }
        }
    }

    /** As {@link #issue(String, String, Signer, String, int, int)}, drawing the security code from SecureRandom. */
    public static Issued issue(String requestJson, String profileJson, Signer signer, String now, int numero) {
        return issue(requestJson, profileJson, signer, now, numero, RANDOM.nextInt());
    }

    /**
     * Signs the element whose {@code Id} is {@code id} (enveloped XMLDSig, RSA-SHA256, exclusive C14N) and returns
     * the document with the {@code Signature} after that element.
     */
    public static String sign(String xml, String id, Signer signer) {
        Objects.requireNonNull(signer, "signer");
        try (Ffi.In x = Ffi.In.text(xml, "xml"); Ffi.In i = Ffi.In.text(id, "id")) {
            return Ffi.textOf((out, err) ->
                    signer.use(s -> Ffi.LIB.kuatia_xml_sign(x.ptr, x.len, i.ptr, i.len, s, out, err)));
        }
    }

    /**
     * Verifies the first XMLDSig signature of {@code xml}. An invalid signature is a result, not an exception.
     *
     * @param at Paraguay local time at which the certificate must have been valid; {@code null}: not checked
     */
    public static Verification verify(String xml, String at) {
        try (Ffi.In x = Ffi.In.text(xml, "xml"); Ffi.In a = Ffi.In.optText(at)) {
            ByteByReference valid = new ByteByReference();
            JsonNode report = Ffi.jsonOf((out, err) ->
                    Ffi.LIB.kuatia_xml_verify(x.ptr, x.len, a.ptr, a.len, valid, out, err));
            JsonNode error = report.path("error");
            JsonNode at2 = report.path("certificate_valid_at");
            return new Verification(valid.getValue() != 0, textOrNull(report.path("reference_id")),
                    report.path("digest_ok").asBoolean(false), report.path("signature_ok").asBoolean(false),
                    at2.isBoolean() ? at2.asBoolean() : null, error.isObject() ? finding(error) : null, report);
        }
    }

    /**
     * Builds {@code dCarQR} from its parts as JSON ({@code cdc}, {@code fecha_emision}, {@code receptor},
     * {@code total}, {@code total_iva}, {@code items}, {@code digest_value}, {@code csc_id}, {@code csc},
     * {@code ambiente}).
     */
    public static String qrBuild(String fieldsJson) {
        try (Ffi.In f = Ffi.In.text(fieldsJson, "fieldsJson")) {
            return Ffi.textOf((out, err) -> Ffi.LIB.kuatia_qr_build(f.ptr, f.len, out, err));
        }
    }

    /**
     * Parses a {@code dCarQR} into its parts (plus {@code version} and {@code hash}); with a {@code csc}, also
     * checks the hash ({@code hash_ok}).
     */
    public static JsonNode qrParse(String dcarqr, String csc) {
        try (Ffi.In q = Ffi.In.text(dcarqr, "dcarqr"); Ffi.In c = Ffi.In.optText(csc)) {
            return Ffi.jsonOf((out, err) -> Ffi.LIB.kuatia_qr_parse(q.ptr, q.len, c.ptr, c.len, out, err));
        }
    }

    /**
     * The SOAP request of a SIFEN web service, for the host to {@code POST} over mutual TLS:
     * {@code {"service","url","content_type","xml"}} (plus {@code "cdcs"} for a lot). {@code kind} is
     * {@code recibe} ({@code arg}: a signed rDE), {@code recibe-lote} (a JSON array of signed rDEs), {@code consulta}
     * (a CDC), {@code consulta-lote} (the lot number), {@code consulta-ruc} (a RUC) or {@code evento} (the JSON array
     * of 1 to 15 events signed by {@link #sifenEventSign}, see {@link #sifenEventRequest}); {@code dId} is the
     * request identifier (unsigned).
     *
     * @throws KuatiaException {@code INVALID_CDC}, {@code SIFEN_LOT_EMPTY}, ... when the request cannot be built
     */
    public static JsonNode sifenRequest(String kind, String arg, long dId, boolean production) {
        try (Ffi.In k = Ffi.In.text(kind, "kind"); Ffi.In a = Ffi.In.text(arg, "arg")) {
            return Ffi.jsonOf((out, err) -> Ffi.LIB.kuatia_sifen_request(k.ptr, k.len, a.ptr, a.len, dId,
                    (byte) (production ? 1 : 0), out, err));
        }
    }

    /**
     * Builds and signs one SIFEN event from its JSON form and returns {@code {"id","kind","cdc","xml"}} (the event
     * {@code Id}, the payload element such as {@code rGeVeCan}, the CDC concerned or {@code null}, and the signed
     * {@code rGesEve}) for {@link #sifenEventRequest}. The JSON has {@code "tipo"} ({@code cancelacion},
     * {@code inutilizacion}, {@code nominacion}, {@code transporte}, {@code notificacion_recepcion},
     * {@code conformidad}, {@code disconformidad} or {@code desconocimiento}), {@code "id"}, {@code "fecha_firma"}
     * (Paraguay local time) and the fields of its kind.
     *
     * @param firmanteRuc who must sign: the emitter for emitter events, the receiver for receiver events; the
     *     signer's certificate must carry it
     * @throws KuatiaException {@code INVALID_INPUT} with every finding and its JSON path
     *     ({@code SIFEN_EVENT_INVALID}, {@code SIFEN_EVENT_SIGNER}, {@code INVALID_CDC}, ...)
     */
    public static JsonNode sifenEventSign(String eventJson, String firmanteRuc, Signer signer) {
        Objects.requireNonNull(signer, "signer");
        try (Ffi.In e = Ffi.In.text(eventJson, "eventJson"); Ffi.In r = Ffi.In.text(firmanteRuc, "firmanteRuc")) {
            return Ffi.jsonOf((out, err) ->
                    signer.use(s -> Ffi.LIB.kuatia_sifen_event_sign(e.ptr, e.len, r.ptr, r.len, s, out, err)));
        }
    }

    /**
     * {@link #sifenRequest} {@code "evento"} for events returned by {@link #sifenEventSign} (1 to 15, distinct ids):
     * the {@code rEnviEventoDe} request carrying them.
     */
    public static JsonNode sifenEventRequest(List<JsonNode> signedEvents, long dId, boolean production) {
        Objects.requireNonNull(signedEvents, "signedEvents");
        return sifenRequest("evento", Ffi.JSON.createArrayNode().addAll(signedEvents).toString(), dId, production);
    }

    /**
     * SIFEN's answer (the SOAP XML of the HTTP response) as {@code {"service","result","action"}}: the typed result
     * and what it means for the invoice lifecycle.
     *
     * @throws KuatiaException {@code SIFEN_UNEXPECTED_RESPONSE} or {@code SIFEN_SOAP_FAULT} for anything else
     */
    public static JsonNode sifenParseResponse(byte[] response) {
        try (Ffi.In r = Ffi.In.bytes(Objects.requireNonNull(response, "response"), false)) {
            return Ffi.jsonOf((out, err) -> Ffi.LIB.kuatia_sifen_parse_response(r.ptr, r.len, out, err));
        }
    }

    /**
     * What a SIFEN response code means and its usual fix ({@code {"code","meaning","fix"}}) in the chosen language
     * ({@link #setLanguage}); null when undocumented.
     */
    public static JsonNode sifenDescribe(String code) {
        return sifenDescribe(code, null);
    }

    /** {@link #sifenDescribe(String)} in {@code lang} ({@code null}: the chosen language). */
    public static JsonNode sifenDescribe(String code, String lang) {
        try (Ffi.In c = Ffi.In.text(code, "code"); Memory l = Ffi.cLang(lang)) {
            JsonNode info = Ffi.jsonOf((out, err) -> Ffi.LIB.kuatia_sifen_describe_in(c.ptr, c.len, l, out, err));
            return info.isNull() ? null : info;
        }
    }

    /** The KuDE (printed form) of a signed {@code rDE} as a PDF. */
    public static byte[] kudePdf(String xml, KudeFormat format) {
        return kudePdf(xml, format, false);
    }

    /**
     * The KuDE of a signed {@code rDE} as a PDF; {@code preview} draws a "not valid" watermark for documents SIFEN
     * has not approved yet.
     *
     * @throws KuatiaException {@code MALFORMED_XML}, or {@code VALIDATION_ERROR.REQUIRED} at {@code dCarQR}
     */
    public static byte[] kudePdf(String xml, KudeFormat format, boolean preview) {
        Objects.requireNonNull(format, "format");
        try (Ffi.In x = Ffi.In.text(xml, "xml")) {
            return Ffi.bytesOf((out, err) ->
                    Ffi.LIB.kuatia_kude_pdf(x.ptr, x.len, format.code(), (byte) (preview ? 1 : 0), out, err));
        }
    }

    /** A finding from its JSON form. */
    static Finding finding(JsonNode f) {
        Map<String, Object> params = new LinkedHashMap<>();
        f.path("params").fields().forEachRemaining(e ->
                params.put(e.getKey(), e.getValue().isTextual() ? e.getValue().asText() : e.getValue().toString()));
        return new Finding(f.path("code").asText(""), f.path("path").asText(""), f.path("message").asText(""),
                f.path("rule").asText("unclassified"), params);
    }

    /**
     * Every rule a finding can name, as {@code [{"rule", "code", "params": [{"name", "kind"}]}]}: the core's one
     * registry (docs/errors.md), for an application that writes its own text from a finding's rule and params.
     */
    public static JsonNode rules() {
        return Ffi.jsonOf((out, err) -> Ffi.LIB.kuatia_rules(out, err));
    }

    /**
     * Chooses the language of every message read from now on, for every thread: {@code "es"} (Spanish of Paraguay,
     * the default) or {@code "en"}; any tag the library parses ({@code "es-PY"}, {@code "en-US"}) is accepted, and an
     * unknown one reads as Spanish.
     */
    public static void setLanguage(String lang) {
        Ffi.language = Objects.requireNonNull(lang, "lang");
    }

    /** The language chosen with {@link #setLanguage} ({@code "es"} by default). */
    public static String language() {
        return Ffi.language;
    }

    /**
     * A report kuatia wrote (a validation report, a verification, a findings array; JSON text) with every finding's
     * message rendered again in {@code lang} ({@code null}: the chosen language), for one reader's language.
     *
     * @throws KuatiaException {@code MALFORMED_JSON} when {@code reportJson} is not JSON
     */
    public static String localize(String reportJson, String lang) {
        try (Ffi.In r = Ffi.In.text(reportJson, "reportJson"); Memory l = Ffi.cLang(lang)) {
            return Ffi.textOf((out, err) -> Ffi.LIB.kuatia_findings_localize(r.ptr, r.len, l, out, err));
        }
    }

    private static String textOrNull(JsonNode n) {
        return n.isTextual() ? n.asText() : null;
    }
}
