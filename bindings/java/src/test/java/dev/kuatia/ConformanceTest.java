package dev.kuatia;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Replays tests/fixtures/cases through the Java binding: the same findings (codes and paths, in order), totals,
 * CDC, number, QR and SHA-256 of the signed XML that Rust recorded.
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
            List<List<String>> want = new ArrayList<>();
            for (JsonNode e : exp.get("errors")) {
                want.add(List.of(e.get("code").asText(), e.get("path").asText()));
            }
            assertFalse(report.ok());
            assertEquals(want, codesAndPaths(report.errors()));
            // Issuing the same request fails with the same findings, as an exception.
            KuatiaException e = assertThrows(KuatiaException.class,
                    () -> Kuatia.issue(request, null, signer, now, numero, codigo));
            assertEquals(Status.INVALID_INPUT, e.status());
            assertEquals(want, codesAndPaths(e.findings()));
            assertEquals(want.get(0), List.of(e.code(), e.path()));
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

    private static List<List<String>> codesAndPaths(List<Finding> findings) {
        return findings.stream().map(f -> List.of(f.code(), f.path())).toList();
    }
}
