package dev.kuatia;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The wrappers one by one: results checked against SIFEN.md's worked examples and independent tools. */
class KuatiaTest {
    private static final String NOW = "2025-03-10T10:11:00";

    @Test
    void codesAreTheRegistry() {
        // The same list as tests/fixtures/codes.json, which core/tests/registry.rs checks against the Rust registry.
        JsonNode want = Fixtures.json(Fixtures.root().resolve("tests/fixtures/codes.json"));
        assertEquals(want, Kuatia.codes());
        assertEquals("INVALID_RUC", Kuatia.codes().get(0).get("code").asText());
    }

    @Test
    void versionIsTheHeaders() throws IOException {
        String header = Files.readString(Fixtures.root().resolve("include/kuatia.h"));
        Matcher m = Pattern.compile("#define KUATIA_VERSION \"([^\"]+)\"").matcher(header);
        assertTrue(m.find());
        assertEquals(m.group(1), Kuatia.version());
    }

    @Test
    void nowInParaguayHasTheFormKuatiaReads() {
        String now = Kuatia.nowInParaguay();
        assertTrue(now.matches("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}"), now);
        // kuatia accepts it as `now` (a malformed one is an exception, see badNow...).
        Kuatia.validate(Fixtures.kase("fe_spec_example").get("request").toString(), null, now);
    }

    @Test
    void rucCheckDigitsFromSifenMd() {
        assertEquals(1, Kuatia.rucDv("80069563")); // SIFEN.md §1 worked example
        Kuatia.rucCheck("80069563-1");
        assertTrue(Kuatia.isValidRuc("80069563-1"));
        assertFalse(Kuatia.isValidRuc("80069563-2"));
        KuatiaException e = assertThrows(KuatiaException.class, () -> Kuatia.rucCheck("80069563-2"));
        assertEquals(Status.INVALID_INPUT, e.status());
        assertEquals("INVALID_RUC", e.code());
        assertEquals(1, e.findings().size());
        assertEquals("INVALID_RUC", e.findings().get(0).code());
        assertFalse(e.getMessage().isEmpty());
    }

    @Test
    void emptyInputIsAnEmptyStringNotANullPointer() {
        KuatiaException e = assertThrows(KuatiaException.class, () -> Kuatia.rucDv(""));
        assertEquals("INVALID_RUC", e.code(), "an empty Java string must reach C as a valid pointer");
        assertFalse(Kuatia.isValidRuc(""));
    }

    @Test
    void javaNullIsANullPointerException() {
        assertThrows(NullPointerException.class, () -> Kuatia.rucDv(null));
        assertThrows(NullPointerException.class, () -> Kuatia.validate(null, null, NOW));
        assertThrows(NullPointerException.class, () -> Kuatia.issue("{}", null, null, NOW, 1, 1));
    }

    @Test
    void cdcFromSifenMdWorkedExample() {
        String fields = "{\"tipo_documento\":1,\"ruc\":\"80069563-1\",\"establecimiento\":1,\"punto\":1,"
                + "\"numero\":1,\"tipo_contribuyente\":2,\"fecha\":\"2022-08-14\",\"tipo_emision\":1,"
                + "\"codigo_seguridad\":123456789}";
        String cdc = Kuatia.cdcBuild(fields);
        assertEquals("01800695631001001000000122022081411234567891", cdc); // SIFEN.md §2
        JsonNode parts = Kuatia.cdcParse(cdc);
        assertEquals(cdc, parts.get("cdc").asText());
        assertEquals(1, parts.get("dv").asInt());
        assertEquals(1, parts.get("numero").asInt());
        assertEquals(123456789, parts.get("codigo_seguridad").asInt());

        KuatiaException e = assertThrows(KuatiaException.class,
                () -> Kuatia.cdcParse("01800695631001001000000122022081411234567890"));
        assertEquals("INVALID_CDC", e.code());
        KuatiaException b = assertThrows(KuatiaException.class, () -> Kuatia.cdcBuild("{\"tipo_documento\":1}"));
        assertEquals(Status.INVALID_INPUT, b.status());
    }

    @Test
    void validationReportsEveryFindingAsData() throws IOException {
        String req = "{\"tipo_documento\":1,\"receptor\":{\"ruc\":\"80069563-2\",\"razon_social\":\"\"},"
                + "\"items\":[{\"descripcion\":\"\",\"cantidad\":0,\"precio_unitario\":5,\"iva\":11}]}";
        Report r = Kuatia.validate(req, null, NOW);
        assertFalse(r.ok());
        assertTrue(r.errors().size() >= 4, r.errors().toString());
        List<String> paths = r.errors().stream().map(Finding::path).toList();
        assertTrue(paths.containsAll(List.of("receptor.ruc", "items[0].descripcion", "items[0].iva")), paths::toString);
        // The report JSON as localized (kuatia_findings_localize writes its keys in sorted order).
        JsonNode report = Fixtures.JSON.readTree(r.json());
        assertFalse(report.path("ok").asBoolean(true), r.json());
        assertEquals(r.errors().size(), report.path("errors").size(), r.json());
        assertThrows(UnsupportedOperationException.class, () -> r.errors().clear());
    }

    @Test
    void exceptionCarriesFindingsAndTheirJson() throws IOException {
        String req = "{\"tipo_documento\":1,\"receptor\":{\"ruc\":\"80069563-2\",\"razon_social\":\"\"},"
                + "\"items\":[{\"descripcion\":\"\",\"cantidad\":0,\"precio_unitario\":5,\"iva\":11}]}";
        try (Signer s = Signer.sandbox()) {
            KuatiaException e = assertThrows(KuatiaException.class, () -> Kuatia.issue(req, null, s, NOW, 1));
            assertTrue(e.findings().size() >= 4);
            JsonNode json = Fixtures.JSON.readTree(e.findingsJson());
            assertEquals(e.findings().size(), json.size());
            for (int i = 0; i < json.size(); i++) {
                assertEquals(Kuatia.finding(json.get(i)), e.findings().get(i));
            }
            assertTrue(e.toString().contains(e.code()), e.toString());
        }
    }

    @Test
    void badNowAndBadProfileAreExceptionsWithTheirPath() {
        String req = Fixtures.kase("fe_spec_example").get("request").toString();
        KuatiaException e = assertThrows(KuatiaException.class, () -> Kuatia.validate(req, null, "yesterday"));
        assertEquals(Status.INVALID_INPUT, e.status());
        assertEquals("now", e.path());
        KuatiaException p = assertThrows(KuatiaException.class, () -> Kuatia.validate(req, "{\"ruc\":1}", NOW));
        assertTrue(p.path().startsWith("profile"), p.toString());
        KuatiaException j = assertThrows(KuatiaException.class, () -> Kuatia.totals("{not json"));
        assertEquals(Status.INVALID_INPUT, j.status());
    }

    @Test
    void numberingKeyAndPreviewCarryTheIssuedCdc() {
        JsonNode c = Fixtures.kase("fe_spec_example");
        String req = c.get("request").toString();
        String cdc = c.get("expected").get("cdc").asText();
        JsonNode key = Kuatia.numberingKey(req, null, NOW);
        assertEquals("001", key.get("establecimiento").asText());
        assertEquals("001", key.get("punto").asText());
        String preview = Kuatia.previewXml(req, null, NOW, 1, 123456789);
        assertTrue(preview.contains("Id=\"" + cdc + "\""), "preview carries the CDC issuing gives");
        assertFalse(preview.contains("<Signature"));

        // Signing the preview by hand gives a verifiable document; tampering is detected.
        try (Signer s = Signer.sandbox()) {
            String signed = Kuatia.sign(preview, cdc, s);
            Verification ok = Kuatia.verify(signed, NOW);
            assertTrue(ok.valid(), ok.report()::toString);
            assertTrue(ok.digestOk() && ok.signatureOk());
            assertEquals(Boolean.TRUE, ok.certificateValidAt());
            assertNull(ok.error());
            assertNull(Kuatia.verify(signed, null).certificateValidAt());

            String tampered = signed.replaceFirst("<dCodSeg>1", "<dCodSeg>2");
            assertNotEquals(signed, tampered);
            Verification bad = Kuatia.verify(tampered, NOW);
            assertFalse(bad.valid());
            assertFalse(bad.digestOk());
            assertNotNull(bad.error());

            KuatiaException e = assertThrows(KuatiaException.class, () -> Kuatia.sign(preview, "nope", s));
            assertEquals("ELEMENT_NOT_FOUND", e.code());
        }
    }

    @Test
    void qrParsesAndRebuildsToTheSameText() {
        String qr = Fixtures.kase("fe_spec_example").get("expected").get("qr").asText();
        JsonNode parts = Kuatia.qrParse(qr, Fixtures.SANDBOX_CSC);
        assertTrue(parts.get("hash_ok").asBoolean());
        assertFalse(Kuatia.qrParse(qr, "WRONG0000000000000000000000000000").get("hash_ok").asBoolean());
        assertFalse(Kuatia.qrParse(qr, null).has("hash_ok"));
        ObjectNode fields = parts.deepCopy();
        fields.remove(List.of("version", "hash", "hash_ok"));
        fields.put("csc", Fixtures.SANDBOX_CSC);
        assertEquals(qr, Kuatia.qrBuild(fields.toString()));
        assertEquals(Status.INVALID_INPUT,
                assertThrows(KuatiaException.class, () -> Kuatia.qrParse("https://example.com", null)).status());
    }

    @Test
    void sifenRequestParseAndDescribe() throws Exception {
        String cdc = "01444444017001001000000122025031011234567890";
        JsonNode req = Kuatia.sifenRequest("consulta", cdc, 7, false);
        assertEquals("consulta", req.get("service").asText());
        assertTrue(req.get("xml").asText().contains("<dCDC>" + cdc + "</dCDC>"));
        assertTrue(req.get("url").asText().startsWith("https://sifen-test."));
        assertEquals("SIFEN_LOT_EMPTY",
                assertThrows(KuatiaException.class, () -> Kuatia.sifenRequest("recibe-lote", "[]", 1, false)).code());
        byte[] answer = Files.readAllBytes(Fixtures.root().resolve("core/tests/sifen_samples/consulta_0422.xml"));
        JsonNode parsed = Kuatia.sifenParseResponse(answer);
        assertEquals("consulta", parsed.get("service").asText());
        assertTrue(parsed.get("result").toString().contains("0422"));
        assertTrue(parsed.has("action"));
        assertEquals("SIFEN_UNEXPECTED_RESPONSE", assertThrows(KuatiaException.class,
                () -> Kuatia.sifenParseResponse("<html></html>".getBytes(StandardCharsets.UTF_8))).code());
        assertEquals("0160", Kuatia.sifenDescribe("0160").get("code").asText());
        assertNull(Kuatia.sifenDescribe("9999"));
        assertTrue(Kuatia.sifenDescribe("0160").get("meaning").asText().contains("XML mal formado"));
        assertTrue(Kuatia.sifenDescribe("0160", "en").get("meaning").asText().contains("malformed"));
    }

    @Test
    void sifenEventsSignedAndSentInAnEventoRequest() {
        String golden = "01444444017001001000000122025031011234567890"; // emitted by the sandbox RUC 44444401-7
        String foreign = "01800695631001001000000122022081411234567891"; // emitted by 80069563-1
        try (Signer signer = Signer.sandbox()) {
            JsonNode cancel = Kuatia.sifenEventSign("{\"tipo\":\"cancelacion\",\"id\":1,"
                    + "\"fecha_firma\":\"2025-03-11T09:00:00\",\"cdc\":\"" + golden + "\","
                    + "\"motivo\":\"Error en el precio\"}", "44444401-7", signer);
            assertEquals(1, cancel.get("id").asLong());
            assertEquals("rGeVeCan", cancel.get("kind").asText());
            assertEquals(golden, cancel.get("cdc").asText());
            assertTrue(cancel.get("xml").asText().startsWith("<rGesEve><rEve Id=\"1\">"));
            // A receiver event is signed by the receiver: with the sandbox certificate that is 44444401-7, so the
            // document is one 80069563-1 emitted to it.
            JsonNode conf = Kuatia.sifenEventSign("{\"tipo\":\"conformidad\",\"id\":2,"
                    + "\"fecha_firma\":\"2025-03-11T09:00:00\",\"cdc\":\"" + foreign + "\"}", "44444401-7", signer);
            assertEquals("rGeVeConf", conf.get("kind").asText());
            JsonNode req = Kuatia.sifenEventRequest(List.of(cancel, conf), 9, false);
            assertEquals("evento", req.get("service").asText());
            assertTrue(req.get("url").asText().endsWith("/de/ws/eventos/evento.wsdl"));
            String xml = req.get("xml").asText();
            assertTrue(xml.contains("<dId>9</dId><dEvReg><gGroupGesEve"), xml);
            assertEquals(2, xml.split("<rGesEve>", -1).length - 1);
            Verification v = Kuatia.verify(xml, null);
            assertTrue(v.valid());
            assertEquals("1", v.referenceId());
            // The plain sifenRequest takes the JSON array as text.
            assertEquals("evento", Kuatia.sifenRequest("evento", "[" + cancel + "]", 9, true).get("service").asText());

            KuatiaException e = assertThrows(KuatiaException.class, () -> Kuatia.sifenEventSign(
                    "{\"tipo\":\"cancelacion\",\"id\":1,\"fecha_firma\":\"2025-03-11T09:00:00\",\"cdc\":\"" + golden
                            + "\",\"motivo\":\"mal\"}", "44444401-7", signer));
            assertEquals(Status.INVALID_INPUT, e.status());
            assertEquals("SIFEN_EVENT_INVALID", e.code());
            assertEquals("motivo", e.path());
            e = assertThrows(KuatiaException.class, () -> Kuatia.sifenEventSign("{\"tipo\":\"conformidad\",\"id\":2,"
                    + "\"fecha_firma\":\"2025-03-11T09:00:00\",\"cdc\":\"" + golden + "\"}", "44444401-7", signer));
            assertEquals("SIFEN_EVENT_SIGNER", e.code()); // the emitter cannot agree with its own document
            e = assertThrows(KuatiaException.class,
                    () -> Kuatia.sifenEventSign("{\"tipo\":\"anulacion\",\"id\":1}", "44444401-7", signer));
            assertEquals(List.of("tipo", "fecha_firma"), e.findings().stream().map(Finding::path).toList());
            assertEquals("SIFEN_EVENT_DUPLICATE_ID", assertThrows(KuatiaException.class,
                    () -> Kuatia.sifenEventRequest(List.of(cancel, cancel), 9, false)).code());
            ObjectNode tampered = cancel.deepCopy();
            tampered.put("xml", cancel.get("xml").asText().replace("Error en el precio", "Error en el monto"));
            e = assertThrows(KuatiaException.class, () -> Kuatia.sifenEventRequest(List.of(tampered), 9, false));
            assertEquals("arg[0].xml", e.path());
            assertEquals("SIFEN_EVENT_COUNT",
                    assertThrows(KuatiaException.class, () -> Kuatia.sifenEventRequest(List.of(), 9, false)).code());
        }
    }

    @Test
    void kudePdfInBothFormatsPassesQpdf(@TempDir Path dir) throws Exception {
        JsonNode c = Fixtures.kase("fe_guarani_text");
        JsonNode ctx = c.get("context");
        Issued issued;
        try (Signer s = Signer.sandbox()) {
            issued = Kuatia.issue(c.get("request").toString(), null, s, ctx.get("now").asText(),
                    ctx.get("numero").asInt(), ctx.get("codigo_seguridad").asInt());
        }
        for (KudeFormat f : KudeFormat.values()) {
            for (boolean preview : new boolean[] {false, true}) {
                byte[] pdf = Kuatia.kudePdf(issued.xml(), f, preview);
                assertArrayEquals("%PDF-".getBytes(StandardCharsets.US_ASCII), Arrays.copyOf(pdf, 5));
                qpdfCheck(dir.resolve(f + "-" + preview + ".pdf"), pdf);
            }
        }
        String unsigned = Kuatia.previewXml(c.get("request").toString(), null, ctx.get("now").asText(), 1, 7);
        KuatiaException e = assertThrows(KuatiaException.class, () -> Kuatia.kudePdf(unsigned, KudeFormat.A4));
        assertEquals("dCarQR", e.path().replaceAll(".*\\.", ""), e.toString());
        assertEquals("MALFORMED_XML",
                assertThrows(KuatiaException.class, () -> Kuatia.kudePdf("<rDE", KudeFormat.TICKET)).code());
    }

    /** Runs `qpdf --check` on the file (an independent PDF parser; .ci/run installs qpdf): a missing qpdf fails. */
    private static void qpdfCheck(Path file, byte[] pdf) throws Exception {
        Files.write(file, pdf);
        Process p;
        try {
            p = new ProcessBuilder("qpdf", "--check", file.toString()).redirectErrorStream(true).start();
        } catch (IOException noQpdf) {
            throw new AssertionError("qpdf is required to check the KuDE PDF (Debian: qpdf): " + noQpdf.getMessage(), noQpdf);
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), out);
    }
}
