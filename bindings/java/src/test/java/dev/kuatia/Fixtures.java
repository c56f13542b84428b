package dev.kuatia;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;

/** Shared test inputs: the repository's conformance cases and test certificates. */
final class Fixtures {
    private Fixtures() {}

    static final ObjectMapper JSON = new ObjectMapper();

    /** CSC secret of the built-in sandbox profile (core/src/profile.rs, public and TEST ONLY). */
    static final String SANDBOX_CSC = "ABCD0000000000000000000000000000";

    /** The repository root (Surefire passes it; a plain IDE run from bindings/java works too). */
    static Path root() {
        return Path.of(System.getProperty("kuatia.root", "../..")).toAbsolutePath().normalize();
    }

    static List<Path> cases() {
        try (Stream<Path> s = Files.list(root().resolve("tests/fixtures/cases"))) {
            return s.filter(p -> p.toString().endsWith(".json")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static JsonNode json(Path p) {
        try {
            return JSON.readTree(Files.readString(p, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static JsonNode kase(String name) {
        return json(root().resolve("tests/fixtures/cases/" + name + ".json"));
    }

    static byte[] cert(String name) {
        try {
            return Files.readAllBytes(root().resolve("tests/fixtures/certs/" + name));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String sha256(String text) {
        try {
            return HexFormat.of().formatHex(
                    MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
