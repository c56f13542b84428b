package dev.kuatia;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Replays tests/fixtures/cases through the Java binding: the same findings (code, path, rule, params and the message
 * in Spanish and in English, in order), totals, CDC, number, QR and SHA-256 of the signed XML that Rust recorded; and
 * every rule's sample of tests/fixtures/messages.json rendered through {@link Kuatia#localize}.
 */
class ConformanceTest {
    private static Signer signer;

    @BeforeAll
    static void open() {
        signer = Signer.sandbox();
    }

    @AfterAll
    static void close() {
        signer.close();
    }

    @Test
    void thereAreCasesToReplay() {
        assertTrue(Fixtures.cases().size() >= 10, "conformance cases missing under " + Fixtures.root());
    }

    @TestFactory
    Stream<DynamicTest> everyCase() {
        return Fixtures.cases().stream().map(p -> DynamicTest.dynamicTest(name(p), () -> replay(Fixtures.json(p))));
    }

    private static String name(Path p) {
        return p.getFileName().toString().replaceFirst("\\.json$", "");
    }

    private static void replay(JsonNode c) {
        String request = c.get("request").toString();
        JsonNode ctx = c.get("context");
        String now = ctx.get("now").asText();
        int numero = ctx.get("numero").asInt();
        int codigo = (int) ctx.get("codigo_seguridad").asLong();
        JsonNode exp = c.get("expected");

        Report report = Kuatia.validate(request, null, now);
        if (!exp.get("ok").asBoolean()) {
            try {
                for (String lang : List.of("es", "en")) {
                    Kuatia.setLanguage(lang);
                    List<Finding> want = expectedIn(exp, lang);
                    Report r = Kuatia.validate(request, null, now);
                    assertFalse(r.ok());
                    assertEquals(want, r.errors(), lang);
                    // Issuing the same request fails with the same findings, as an exception.
                    KuatiaException e = assertThrows(KuatiaException.class,
                            () -> Kuatia.issue(request, null, signer, now, numero, codigo));
                    assertEquals(Status.INVALID_INPUT, e.status());
                    assertEquals(want, e.findings(), lang);
                    Finding first = want.get(0);
                    assertEquals(List.of(first.code(), first.path(), first.rule(), first.message()),
                            List.of(e.code(), e.path(), e.rule(), e.getMessage()));
                }
            } finally {
                Kuatia.setLanguage("es");
            }
            return;
        }
        assertTrue(report.ok(), () -> "unexpected findings " + report.errors());
        assertTrue(report.errors().isEmpty());

        JsonNode totales = Kuatia.totals(request).get("totales");
        for (Iterator<Map.Entry<String, JsonNode>> it = exp.get("totales").fields(); it.hasNext();) {
            Map.Entry<String, JsonNode> f = it.next();
            assertEquals(f.getValue(), totales.get(f.getKey()), "totales." + f.getKey());
        }

        Issued issued = Kuatia.issue(request, null, signer, now, numero, codigo);
        assertEquals(exp.get("cdc").asText(), issued.cdc());
        assertEquals(exp.get("numero").asText(), issued.numero());
        assertEquals(exp.get("qr").asText(), issued.qr());
        assertEquals(exp.get("xml_sha256").asText(), Fixtures.sha256(issued.xml()));

        Verification v = Kuatia.verify(issued.xml(), now);
        assertTrue(v.valid(), () -> "signature invalid: " + v.report());
        assertEquals(issued.cdc(), v.referenceId());
    }

    /** The findings a refused case expects, with the message in {@code lang} and params as the binding reads them. */
    private static List<Finding> expectedIn(JsonNode exp, String lang) {
        List<Finding> out = new ArrayList<>();
        for (JsonNode e : exp.get("errors")) {
            out.add(new Finding(e.get("code").asText(), e.get("path").asText(), e.get("message").get(lang).asText(),
                    e.get("rule").asText(), params(e.path("params"))));
        }
        return out;
    }

    private static Map<String, Object> params(JsonNode p) {
        Map<String, Object> out = new LinkedHashMap<>();
        p.fields().forEachRemaining(f -> out.put(f.getKey(), f.getValue().isTextual() ? f.getValue().asText()
                : f.getValue().toString()));
        return out;
    }

    @Test
    void everyRuleRendersThroughLocalize() throws Exception {
        JsonNode samples = Fixtures.json(Fixtures.root().resolve("tests/fixtures/messages.json"));
        assertTrue(samples.size() >= 400, "messages.json");
        ArrayNode findings = Fixtures.JSON.createArrayNode();
        for (JsonNode m : samples) {
            findings.addObject().put("code", "X").put("path", "").put("message", "").put("rule", m.get("rule").asText())
                    .set("params", m.get("params"));
        }
        for (String lang : List.of("es", "en")) {
            JsonNode got = Fixtures.JSON.readTree(Kuatia.localize(findings.toString(), lang));
            for (int i = 0; i < samples.size(); i++) {
                assertEquals(samples.get(i).get(lang).asText(), got.get(i).get("message").asText(),
                        samples.get(i).get("rule").asText() + " (" + lang + ")");
            }
        }
    }
}
