package dev.kuatia;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Signers: loading (and failing to load) keys, closing, and sharing one signer between threads. */
class SignerTest {
    private static final char[] TEST_PASSWORD = "kuatia-test".toCharArray(); // tests/fixtures/certs/README.md

    /** Issues fe_spec_example and returns the SHA-256 of the signed XML. */
    private static String issueDigest(Signer s) {
        JsonNode c = Fixtures.kase("fe_spec_example");
        JsonNode ctx = c.get("context");
        Issued i = Kuatia.issue(c.get("request").toString(), null, s, ctx.get("now").asText(),
                ctx.get("numero").asInt(), ctx.get("codigo_seguridad").asInt());
        return Fixtures.sha256(i.xml());
    }

    private static String expectedDigest() {
        return Fixtures.kase("fe_spec_example").get("expected").get("xml_sha256").asText();
    }

    @Test
    void p12AndPemOfTheSandboxKeySignLikeTheSandboxSigner() {
        char[] pass = TEST_PASSWORD.clone();
        try (Signer p12 = Signer.fromP12(Fixtures.cert("sandbox.p12"), pass);
                Signer legacy = Signer.fromP12(Fixtures.cert("sandbox-legacy.p12"), TEST_PASSWORD);
                Signer pem = Signer.fromPem(new String(Fixtures.cert("sandbox.key.pem"), StandardCharsets.UTF_8),
                        new String(Fixtures.cert("sandbox.cert.pem"), StandardCharsets.UTF_8))) {
            assertEquals(expectedDigest(), issueDigest(p12));
            assertEquals(expectedDigest(), issueDigest(legacy));
            assertEquals(expectedDigest(), issueDigest(pem));
        }
        assertEquals("kuatia-test", new String(pass), "the caller's password array is left as it was");
    }

    @Test
    void garbageP12IsP12InvalidAndTheMessageHoldsNoPassword() {
        String secret = "s3cret-Ñandú-pass";
        KuatiaException e = assertThrows(KuatiaException.class,
                () -> Signer.fromP12("not a p12 file".getBytes(StandardCharsets.US_ASCII), secret.toCharArray()));
        assertEquals(Status.SIGN_ERROR, e.status());
        assertEquals("P12_INVALID", e.code());
        assertNoSecret(e, secret);
        KuatiaException empty = assertThrows(KuatiaException.class, () -> Signer.fromP12(new byte[0], new char[0]));
        assertEquals("P12_INVALID", empty.code());
    }

    @Test
    void wrongPasswordAndUnsupportedKeys() {
        String secret = "wrong-password-1234";
        KuatiaException e = assertThrows(KuatiaException.class,
                () -> Signer.fromP12(Fixtures.cert("sandbox.p12"), secret.toCharArray()));
        assertEquals(Status.SIGN_ERROR, e.status());
        assertEquals("P12_WRONG_PASSWORD", e.code());
        assertNoSecret(e, secret);
        assertEquals(Status.SIGN_ERROR, assertThrows(KuatiaException.class,
                () -> Signer.fromP12(Fixtures.cert("rsa1024.p12"), TEST_PASSWORD)).status());
        assertEquals("KEY_CERT_MISMATCH", assertThrows(KuatiaException.class, () -> Signer.fromPem(
                new String(Fixtures.cert("other.key.pem"), StandardCharsets.UTF_8),
                new String(Fixtures.cert("sandbox.cert.pem"), StandardCharsets.UTF_8))).code());
        assertThrows(IllegalArgumentException.class,
                () -> Signer.fromP12(Fixtures.cert("sandbox.p12"), new char[] {'a', '\uD800'}));
    }

    private static void assertNoSecret(KuatiaException e, String secret) {
        for (String s : List.of(String.valueOf(e.getMessage()), e.toString(), e.findingsJson(),
                e.findings().toString())) {
            assertFalse(s.contains(secret), "password leaked: " + s);
        }
    }

    @Test
    void closingTwiceIsSafeAndAClosedSignerIsRefused() {
        Signer s = Signer.sandbox();
        assertFalse(s.isClosed());
        s.close();
        s.close();
        assertTrue(s.isClosed());
        assertThrows(IllegalStateException.class, () -> issueDigest(s));
        assertThrows(IllegalStateException.class, () -> Kuatia.sign("<a Id=\"x\"/>", "x", s));
    }

    @Test
    void oneSignerManyThreads() throws Exception {
        String want = expectedDigest();
        String bad = Fixtures.kase("invalid_every_finding").get("request").toString();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try (Signer s = Signer.sandbox()) {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<String>> results = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                boolean failing = t % 2 == 1;
                Callable<String> job = () -> {
                    start.await();
                    StringBuilder out = new StringBuilder();
                    for (int i = 0; i < 6; i++) {
                        if (failing) {
                            // Error objects are per call: each thread sees its own seven findings.
                            KuatiaException e = assertThrows(KuatiaException.class,
                                    () -> Kuatia.issue(bad, null, s, "2025-03-10T10:11:00", 1, 1));
                            out.append(e.findings().size()).append(';');
                        } else {
                            out.append(issueDigest(s)).append(';');
                        }
                    }
                    return out.toString();
                };
                results.add(pool.submit(job));
            }
            start.countDown();
            for (int t = 0; t < results.size(); t++) {
                String expected = (t % 2 == 1 ? "7;" : want + ";").repeat(6);
                assertEquals(expected, results.get(t).get(120, TimeUnit.SECONDS));
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void closingWhileOtherThreadsSignWaitsForThemAndThenRefuses() throws Exception {
        String want = expectedDigest();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            Signer s = Signer.sandbox();
            CountDownLatch running = new CountDownLatch(4);
            List<Future<Integer>> results = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                results.add(pool.submit(() -> {
                    running.countDown();
                    int done = 0;
                    while (true) {
                        String got;
                        try {
                            got = issueDigest(s);
                        } catch (IllegalStateException closed) {
                            return done;
                        }
                        assertEquals(want, got);
                        done++;
                    }
                }));
            }
            running.await();
            Thread.sleep(50);
            s.close();
            for (Future<Integer> f : results) {
                f.get(120, TimeUnit.SECONDS); // every worker stops cleanly, none crashed the JVM
            }
            assertTrue(s.isClosed());
        } finally {
            pool.shutdownNow();
        }
    }
}
