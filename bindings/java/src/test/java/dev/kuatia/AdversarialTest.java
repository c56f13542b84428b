package dev.kuatia;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.jna.ptr.ByteByReference;
import com.sun.jna.ptr.PointerByReference;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The adversarial table ({@code tests/adversarial/*.json}) replayed through the Java binding. Every vector goes to
 * the wrapper that reaches its core entry point (request: {@code validate}, and up to 1 MiB also {@code totals}
 * and {@code issue}; validate: {@code validate}'s report; xml: {@code kudePdf}; verify: {@code verify}'s report;
 * sifen_response: {@code sifenParseResponse}; ruc: {@code rucCheck}; cdc: {@code cdcParse}; p12:
 * {@code Signer.fromP12}) and must give the code (and path) the Rust replay asserts, within a time bound, without a
 * crash. The C boundary's two rules apply first (tests/adversarial/README.md): an input longer than
 * KUATIA_MAX_INPUT_LEN is TOO_LARGE, and bytes that are not UTF-8 given to a text argument are INVALID_UTF8. A Java
 * String cannot hold such bytes, so those vectors go through the binding's own JNA declarations with the raw bytes
 * (the same {@code Ffi} plumbing every wrapper uses). Java {@code null} is checked separately: the wrappers refuse
 * it before any native call, and NULL pointers through the JNA declarations are INVALID_ARGUMENT.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class AdversarialTest {
    private static final String NOW = "2025-03-10T10:11:00";
    /** Generous: the slowest vector takes about 2 s; the bound only catches quadratic or worse behaviour. */
    private static final long TIME_BOUND_NANOS = 10_000_000_000L;
    /** Inputs above this (the 100 MB vectors) go through one wrapper only. */
    private static final int SMALL = 1 << 20;
    /** Peak RSS of the JVM (VmHWM) after the table (~850 MiB measured): the JVM, its heap, a few 100 MB copies. */
    private static final long RSS_BOUND_KB = 1536L * 1024;

    private static Signer signer;

    /** One vector of the table. */
    record Vector(String name, String target, JsonNode input, String password, JsonNode expect) {}

    /** What one call answered: {@code null} accepted, else the first finding (status null for a report). */
    record Outcome(String code, String path, String message, Status status) {}

    @BeforeAll
    static void openSigner() {
        signer = Signer.sandbox();
    }

    @AfterAll
    static void closeSigner() {
        signer.close();
    }

    static List<Vector> vectors() {
        List<Vector> out = new ArrayList<>();
        Set<String> names = new HashSet<>();
        List<Path> files;
        try (Stream<Path> s = Files.list(Fixtures.root().resolve("tests/adversarial"))) {
            files = s.filter(p -> p.toString().endsWith(".json")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        assertTrue(files.size() >= 4, "adversarial table missing");
        for (Path f : files) {
            for (JsonNode v : Fixtures.json(f).path("vectors")) {
                String name = v.path("name").asText();
                assertTrue(names.add(name), "duplicate vector " + name);
                out.add(new Vector(name, v.path("target").asText(), v.path("input"),
                        v.hasNonNull("password") ? v.path("password").asText() : "", v.path("expect")));
            }
        }
        assertTrue(out.size() >= 100, "only " + out.size() + " vectors");
        return out;
    }

    static byte[] bytesOf(JsonNode input) {
        if (input.has("text")) {
            return input.path("text").asText().getBytes(StandardCharsets.UTF_8);
        }
        if (input.has("base64")) {
            return Base64.getDecoder().decode(input.path("base64").asText());
        }
        JsonNode r = input.path("repeat");
        if (r.path("unit").asText().contains("{i}")) {
            return textOf(input, null).getBytes(StandardCharsets.UTF_8);
        }
        byte[] prefix = r.path("prefix").asText().getBytes(StandardCharsets.UTF_8);
        byte[] unit = r.path("unit").asText().getBytes(StandardCharsets.UTF_8);
        byte[] suffix = r.path("suffix").asText().getBytes(StandardCharsets.UTF_8);
        int count = r.path("count").asInt();
        ByteBuffer b = ByteBuffer.allocate(prefix.length + unit.length * count + suffix.length);
        b.put(prefix);
        for (int i = 0; i < count; i++) {
            b.put(unit);
        }
        return b.put(suffix).array();
    }

    /** The input as Java text (built directly for text and repeat inputs, which are JSON text already). */
    static String textOf(JsonNode input, byte[] data) {
        if (input.has("text")) {
            return input.path("text").asText();
        }
        if (input.has("repeat")) {
            JsonNode r = input.path("repeat");
            String unit = r.path("unit").asText();
            int count = r.path("count").asInt();
            if (!unit.contains("{i}")) {
                return r.path("prefix").asText() + unit.repeat(count) + r.path("suffix").asText();
            }
            // Numbered copies: each copy's "{i}" is its index (distinct attribute names, say).
            StringBuilder sb = new StringBuilder(r.path("prefix").asText());
            for (int i = 0; i < count; i++) {
                sb.append(unit.replace("{i}", Integer.toString(i)));
            }
            return sb.append(r.path("suffix").asText()).toString();
        }
        return utf8(data);
    }

    /** The bytes as Java text, or null when they are not UTF-8 (a String cannot hold them). */
    static String utf8(byte[] data) {
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(data)).toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }

    static long maxInputLen() throws IOException {
        String header = Files.readString(Fixtures.root().resolve("include/kuatia.h"));
        Matcher m = Pattern.compile("#define KUATIA_MAX_INPUT_LEN \\(\\((\\d+) \\* (\\d+)\\) \\* (\\d+)\\)")
                .matcher(header);
        assertTrue(m.find(), "KUATIA_MAX_INPUT_LEN not in the header");
        return Long.parseLong(m.group(1)) * Long.parseLong(m.group(2)) * Long.parseLong(m.group(3));
    }

    static Outcome thrown(Runnable call) {
        try {
            call.run();
            return null;
        } catch (KuatiaException e) {
            assertNotEquals(Status.PANIC, e.status(), "PANIC: " + e.getMessage());
            return new Outcome(e.code(), e.path(), e.getMessage(), e.status());
        }
    }

    static Outcome report(Report r) {
        if (r.ok()) {
            return null;
        }
        Finding f = r.errors().get(0);
        return new Outcome(f.code(), f.path(), f.message(), null);
    }

    static Outcome verification(Verification v) {
        assertEquals(v.valid(), v.error() == null, "valid disagrees with error");
        return v.valid() ? null : new Outcome(v.error().code(), v.error().path(), v.error().message(), null);
    }

    /** A named call of one wrapper. */
    record Call(String fn, Supplier<Outcome> run) {}

    /** The wrappers a vector goes to; {@code text} is null when the bytes are not UTF-8. */
    static List<Call> calls(Vector v, byte[] data, String text) {
        List<Call> calls = new ArrayList<>();
        boolean small = data.length <= SMALL;
        switch (v.target()) {
            case "request", "validate" -> {
                calls.add(new Call("validate", () -> {
                    Outcome[] got = new Outcome[1];
                    Outcome raised = thrown(() -> got[0] = report(Kuatia.validate(text, null, NOW)));
                    return raised != null ? raised : got[0];
                }));
                if (v.target().equals("request") && small) {
                    calls.add(new Call("totals", () -> thrown(() -> Kuatia.totals(text))));
                    calls.add(new Call("issue", () -> thrown(() -> Kuatia.issue(text, null, signer, NOW, 1,
                            123456789))));
                }
            }
            case "xml" -> calls.add(new Call("kudePdf", () -> thrown(() -> Kuatia.kudePdf(text, KudeFormat.A4))));
            case "verify" -> calls.add(new Call("verify", () -> {
                Outcome[] got = new Outcome[1];
                Outcome raised = thrown(() -> got[0] = verification(Kuatia.verify(text, null)));
                return raised != null ? raised : got[0];
            }));
            case "sifen_response" -> calls.add(new Call("sifenParseResponse",
                    () -> thrown(() -> Kuatia.sifenParseResponse(data))));
            case "ruc" -> calls.add(new Call("rucCheck", () -> {
                Outcome o = thrown(() -> Kuatia.rucCheck(text));
                assertEquals(o == null, Kuatia.isValidRuc(text), "isValidRuc disagrees with rucCheck");
                return o;
            }));
            case "cdc" -> calls.add(new Call("cdcParse", () -> thrown(() -> Kuatia.cdcParse(text))));
            case "p12" -> calls.add(new Call("Signer.fromP12",
                    () -> thrown(() -> Signer.fromP12(data, v.password().toCharArray()).close())));
            default -> fail(v.name() + ": unknown target " + v.target());
        }
        return calls;
    }

    /** Bytes that are not UTF-8, through the binding's JNA declarations (the public API takes String). */
    static List<Call> rawCalls(Vector v, byte[] data) {
        List<Call> calls = new ArrayList<>();
        switch (v.target()) {
            case "request", "validate" -> {
                calls.add(new Call("kuatia_invoice_validate", () -> rawCall(data, (in, out, err) -> {
                    try (Ffi.In n = Ffi.In.text(NOW, "now")) {
                        return Ffi.LIB.kuatia_invoice_validate(in.ptr, in.len, null, new KuatiaLibrary.SizeT(0),
                                n.ptr, n.len, out, err);
                    }
                })));
                calls.add(new Call("kuatia_invoice_totals", () -> rawCall(data,
                        (in, out, err) -> Ffi.LIB.kuatia_invoice_totals(in.ptr, in.len, out, err))));
            }
            case "xml" -> calls.add(new Call("kuatia_kude_pdf", () -> rawCall(data, (in, out, err) ->
                    Ffi.LIB.kuatia_kude_pdf(in.ptr, in.len, KudeFormat.A4.code(), (byte) 0, out, err))));
            case "verify" -> calls.add(new Call("kuatia_xml_verify", () -> rawCall(data, (in, out, err) ->
                    Ffi.LIB.kuatia_xml_verify(in.ptr, in.len, null, new KuatiaLibrary.SizeT(0),
                            new ByteByReference(), out, err))));
            case "ruc" -> calls.add(new Call("kuatia_ruc_check", () -> rawCall(data,
                    (in, out, err) -> Ffi.LIB.kuatia_ruc_check(in.ptr, in.len, err))));
            case "cdc" -> calls.add(new Call("kuatia_cdc_parse", () -> rawCall(data,
                    (in, out, err) -> Ffi.LIB.kuatia_cdc_parse(in.ptr, in.len, out, err))));
            default -> fail(v.name() + ": raw bytes for target " + v.target());
        }
        return calls;
    }

    @FunctionalInterface
    interface RawFn {
        int call(Ffi.In in, KuatiaLibrary.Bytes out, PointerByReference err);
    }

    static Outcome rawCall(byte[] data, RawFn fn) {
        try (Ffi.In in = Ffi.In.bytes(data, false)) {
            return thrown(() -> Ffi.bytesOf((out, err) -> fn.call(in, out, err)));
        }
    }

    @TestFactory
    @Order(1)
    Stream<DynamicTest> table() throws IOException {
        long maxInput = maxInputLen();
        return vectors().stream().map(v -> DynamicTest.dynamicTest(v.name(), () -> {
            byte[] data = bytesOf(v.input());
            boolean bytesTarget = v.target().equals("sifen_response") || v.target().equals("p12");
            String text = bytesTarget ? null : textOf(v.input(), data);
            boolean wantOk = v.expect().path("ok").asBoolean(false);
            String wantCode = v.expect().path("code").asText(null);
            String wantPath = v.expect().hasNonNull("path") ? v.expect().path("path").asText() : null;
            List<Call> calls;
            if (data.length > maxInput) {
                wantOk = false;
                wantCode = "TOO_LARGE";
                wantPath = null;
            }
            if (!bytesTarget && text == null) {
                wantOk = false;
                wantCode = data.length > maxInput ? "TOO_LARGE" : "INVALID_UTF8";
                wantPath = null;
                calls = rawCalls(v, data);
            } else {
                calls = calls(v, data, text);
            }
            for (Call c : calls) {
                long t0 = System.nanoTime();
                Outcome got = c.run().get();
                long took = System.nanoTime() - t0;
                String at = v.name() + " via " + c.fn();
                assertTrue(took < TIME_BOUND_NANOS, at + ": took " + took / 1_000_000 + " ms");
                if (wantOk) {
                    assertEquals(null, got, at + ": expected ok");
                    continue;
                }
                assertTrue(got != null, at + ": accepted, expected " + wantCode);
                assertEquals(wantCode, got.code(), at + ": " + got);
                if (wantPath != null) {
                    assertEquals(wantPath, got.path(), at + ": path");
                }
                assertTrue(got.message().length() <= 4096, at + ": message of " + got.message().length());
                if (got.status() != null) {
                    Status want = switch (got.code()) {
                        case "TOO_LARGE" -> Status.TOO_LARGE;
                        case "INVALID_UTF8" -> Status.INVALID_UTF8;
                        default -> got.code().startsWith("P12_") ? Status.SIGN_ERROR : Status.INVALID_INPUT;
                    };
                    assertEquals(want, got.status(), at + ": status for " + got.code());
                }
            }
            if (data.length > SMALL) {
                System.gc(); // the 100 MB copies go now, so the RSS check measures the library, not GC pacing
            }
        }));
    }

    /** The wrappers refuse Java null before any native call (NullPointerException naming the parameter). */
    @Test
    @Order(2)
    void nullArgumentsAreRefusedByTheWrappers() {
        byte[] p12 = Fixtures.cert("sandbox.p12");
        List<Runnable> calls = List.of(
                () -> Kuatia.validate(null, null, NOW),
                () -> Kuatia.validate("{}", null, null),
                () -> Kuatia.totals(null),
                () -> Kuatia.issue(null, null, signer, NOW, 1, 1),
                () -> Kuatia.issue("{}", null, null, NOW, 1, 1),
                () -> Kuatia.kudePdf(null, KudeFormat.A4),
                () -> Kuatia.kudePdf("<rDE/>", null),
                () -> Kuatia.verify(null, null),
                () -> Kuatia.sifenParseResponse(null),
                () -> Kuatia.rucCheck(null),
                () -> Kuatia.cdcParse(null),
                () -> Signer.fromP12(null, new char[0]),
                () -> Signer.fromP12(p12, null));
        for (Runnable c : calls) {
            assertThrows(NullPointerException.class, c::run);
        }
        // Optional arguments may be null: the sandbox profile, and no date check in verify.
        assertEquals("VALIDATION_ERROR.REQUIRED", Kuatia.validate("{}", null, NOW).errors().get(0).code());
        assertFalse(Kuatia.verify("<rDE/>", null).valid());
    }

    /** NULL pointers through the binding's JNA declarations: INVALID_ARGUMENT naming the C argument. */
    @Test
    @Order(3)
    void nullPointersAreInvalidArguments() {
        KuatiaLibrary.SizeT eight = new KuatiaLibrary.SizeT(8);
        KuatiaLibrary.SizeT zero = new KuatiaLibrary.SizeT(0);
        record Case(String arg, RawNull fn) {}
        try (Ffi.In now = Ffi.In.text(NOW, "now"); Ffi.In req = Ffi.In.text("{}", "r")) {
            List<Case> cases = List.of(
                    new Case("request_json", (out, err) -> Ffi.LIB.kuatia_invoice_validate(null, eight, null, zero,
                            now.ptr, now.len, out, err)),
                    new Case("now", (out, err) -> Ffi.LIB.kuatia_invoice_validate(req.ptr, req.len, null, zero, null,
                            eight, out, err)),
                    new Case("out_report", (out, err) -> Ffi.LIB.kuatia_invoice_validate(req.ptr, req.len, null, zero,
                            now.ptr, now.len, null, err)),
                    new Case("request_json", (out, err) -> Ffi.LIB.kuatia_invoice_totals(null, eight, out, err)),
                    new Case("xml", (out, err) -> Ffi.LIB.kuatia_kude_pdf(null, eight, 0, (byte) 0, out, err)),
                    new Case("xml", (out, err) -> Ffi.LIB.kuatia_xml_verify(null, eight, null, zero,
                            new ByteByReference(), out, err)),
                    new Case("bytes", (out, err) -> Ffi.LIB.kuatia_sifen_parse_response(null, eight, out, err)),
                    new Case("ruc", (out, err) -> Ffi.LIB.kuatia_ruc_check(null, eight, err)),
                    new Case("cdc", (out, err) -> Ffi.LIB.kuatia_cdc_parse(null, eight, out, err)),
                    new Case("p12", (out, err) -> Ffi.LIB.kuatia_signer_from_p12(null, eight, req.ptr, req.len,
                            new PointerByReference(), err)),
                    new Case("password", (out, err) -> Ffi.LIB.kuatia_signer_from_p12(req.ptr, req.len, null, eight,
                            new PointerByReference(), err)));
            for (Case c : cases) {
                KuatiaException e = assertThrows(KuatiaException.class, () -> Ffi.bytesOf(c.fn()::call), c.arg());
                assertEquals(Status.INVALID_ARGUMENT, e.status(), c.arg());
                assertEquals("INVALID_ARGUMENT", e.code(), c.arg());
                assertEquals(c.arg(), e.path());
            }
        }
    }

    @FunctionalInterface
    interface RawNull {
        int call(KuatiaLibrary.Bytes out, PointerByReference err);
    }

    /** The peak RSS of the JVM stays bounded after the 100 MB vectors (Linux's VmHWM; without it the test fails). */
    @Test
    @Order(4)
    void peakRssIsBounded() throws IOException {
        Path status = Path.of("/proc/self/status");
        assertTrue(Files.isReadable(status), "/proc/self/status is needed to read the peak RSS (Linux)");
        for (String line : Files.readAllLines(status)) {
            if (line.startsWith("VmHWM:")) {
                long kb = Long.parseLong(line.replaceAll("[^0-9]", ""));
                System.out.println("adversarial (Java): peak RSS " + kb / 1024 + " MiB");
                assertTrue(kb < RSS_BOUND_KB, "peak RSS " + kb / 1024 + " MiB");
                return;
            }
        }
        fail("no VmHWM line in /proc/self/status");
    }
}
