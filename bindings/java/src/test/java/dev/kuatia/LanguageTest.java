package dev.kuatia;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The language of messages: Spanish by default, English after setLanguage("en"); the rule id and its parameters. */
class LanguageTest {
    private static final String ES = "El dígito verificador del RUC no corresponde: debería ser 1, no 2";
    private static final String EN = "wrong RUC check digit: expected 1, got 2";
    private static final String NOW = "2025-03-10T10:11:00";

    @AfterEach
    void spanishAgain() {
        Kuatia.setLanguage("es");
    }

    /** The error of a CDC whose RUC is 80069563-2: its check digit is 1 (SIFEN.md §1). */
    private static KuatiaException badRuc() {
        String fields = "{\"tipo_documento\":1,\"ruc\":\"80069563-2\",\"establecimiento\":1,\"punto\":1,\"numero\":1,"
                + "\"tipo_contribuyente\":2,\"fecha\":\"2025-03-10\",\"tipo_emision\":1,\"codigo_seguridad\":123456789}";
        return assertThrows(KuatiaException.class, () -> Kuatia.cdcBuild(fields));
    }

    @Test
    void aBadCheckDigitReadsInSpanishByDefaultAndInEnglishWhenChosen() {
        assertEquals("es", Kuatia.language());
        KuatiaException e = badRuc();
        assertEquals(List.of("INVALID_RUC", "ruc.check_digit", ES), List.of(e.code(), e.rule(), e.getMessage()));
        assertEquals(Map.of("expected", "1", "got", "2"), e.params());
        assertEquals(List.of(new Finding("INVALID_RUC", "ruc", ES, "ruc.check_digit", Map.of("expected", "1", "got", "2"))),
                e.findings());
        Kuatia.setLanguage("en");
        e = badRuc();
        assertEquals(List.of("ruc.check_digit", EN, EN), List.of(e.rule(), e.getMessage(), e.findings().get(0).message()));
    }

    @Test
    void aValidationReportAndLocalize() throws IOException {
        ObjectNode request = (ObjectNode) Fixtures.kase("fe_spec_example").get("request").deepCopy();
        ((ObjectNode) request.get("receptor")).put("ruc", "80069563-2");
        Finding f = ruc(Kuatia.validate(request.toString(), null, NOW));
        assertEquals(List.of(ES, "receptor.ruc"), List.of(f.message(), f.path()));
        Kuatia.setLanguage("en");
        assertEquals(EN, ruc(Kuatia.validate(request.toString(), null, NOW)).message());
        String report = "{\"ok\":false,\"errors\":[{\"code\":\"INVALID_RUC\",\"path\":\"ruc\",\"message\":\"x\","
                + "\"rule\":\"ruc.check_digit\",\"params\":{\"expected\":\"1\",\"got\":\"2\"}}]}";
        JsonNode es = Fixtures.JSON.readTree(Kuatia.localize(report, "es-PY"));
        assertEquals(ES, es.get("errors").get(0).get("message").asText());
        JsonNode en = Fixtures.JSON.readTree(Kuatia.localize(report, null));
        assertEquals(EN, en.get("errors").get(0).get("message").asText());
        KuatiaException bad = assertThrows(KuatiaException.class, () -> Kuatia.localize("{\"ok\":", "es"));
        assertEquals("MALFORMED_JSON", bad.code());
    }

    @Test
    void rulesAreTheRegistry() {
        JsonNode rules = Kuatia.rules();
        JsonNode recorded = Fixtures.json(Fixtures.root().resolve("tests/fixtures/rules.json"));
        List<JsonNode> all = new java.util.ArrayList<>();
        rules.forEach(all::add);
        recorded.forEach(r -> assertEquals(true, all.contains(r), r.toString()));
        JsonNode check = all.stream().filter(r -> r.get("rule").asText().equals("ruc.check_digit")).findFirst()
                .orElseThrow();
        assertEquals("INVALID_RUC", check.get("code").asText());
        assertEquals("expected", check.get("params").get(0).get("name").asText());
    }

    private static Finding ruc(Report r) {
        return r.errors().stream().filter(f -> f.rule().equals("ruc.check_digit")).findFirst().orElseThrow();
    }

    /** A typed call asks for the chosen language unless the caller's headers do; handle() sends what it is given. */
    @Test
    void typedServiceCallsAskForTheChosenLanguage() {
        try (Service svc = new Service()) {
            Map<String, String> h = Map.of("Authorization", "Bearer " + svc.createAccount("A").key(),
                    "X-Environment", "sandbox");
            java.util.function.Function<Map<String, String>, String> missing = headers -> {
                ApiException e = assertThrows(ApiException.class, () -> svc.getInvoice(headers, "inv_0000000000000000"));
                assertEquals(404, e.status());
                return e.getMessage();
            };
            assertEquals("404 NOT_FOUND: No existe una factura con ese id", missing.apply(h));
            Kuatia.setLanguage("en");
            assertEquals("404 NOT_FOUND: no invoice with that id", missing.apply(h));
            java.util.Map<String, String> es = new java.util.HashMap<>(h);
            es.put("accept-language", "es-PY");
            assertEquals("404 NOT_FOUND: No existe una factura con ese id", missing.apply(es));
            assertEquals("es-PY", svc.handle("GET", "/v1/facturas/inv_0000000000000000", h, (byte[]) null)
                    .header("Content-Language"));
        }
    }
}
