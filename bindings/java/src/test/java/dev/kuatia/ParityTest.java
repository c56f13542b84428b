package dev.kuatia;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** Every function of include/kuatia.h is declared in KuatiaLibrary and called by the public wrappers. */
class ParityTest {
    private static Set<String> headerFunctions() throws IOException {
        // Comments mention types in prose ("kuatia_bytes (ptr, len)"); only declarations count.
        String header = Files.readString(Fixtures.root().resolve("include/kuatia.h"))
                .replaceAll("(?s)/\\*.*?\\*/", "").replaceAll("//[^\n]*", "");
        Matcher m = Pattern.compile("\\b(kuatia_[a-z0-9_]+)\\s*\\(").matcher(header);
        Set<String> names = new TreeSet<>();
        while (m.find()) {
            names.add(m.group(1));
        }
        return names;
    }

    @Test
    void everyHeaderFunctionIsDeclared() throws IOException {
        Set<String> header = headerFunctions();
        assertTrue(header.size() >= 28, header::toString);
        Set<String> declared = Arrays.stream(KuatiaLibrary.class.getDeclaredMethods()).map(Method::getName)
                .collect(Collectors.toCollection(TreeSet::new));
        assertEquals(header, declared, "KuatiaLibrary must mirror include/kuatia.h");
    }

    @Test
    void everyDeclaredFunctionIsCalled() throws IOException {
        Path src = Path.of("src/main/java/dev/kuatia");
        String callers;
        try (Stream<Path> files = Files.list(src)) {
            callers = files.filter(p -> !p.getFileName().toString().equals("KuatiaLibrary.java")).map(p -> {
                try {
                    return Files.readString(p);
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }).collect(Collectors.joining("\n"));
        }
        // tools/binding_parity.py's exclusions: kuatia_error_json_in gives every finding in the chosen language in
        // one call (so the per-finding accessors and the as-built kuatia_error_json/message are not needed).
        Set<String> excluded = Set.of("kuatia_error_count", "kuatia_error_finding", "kuatia_error_json",
                "kuatia_error_message", "kuatia_sifen_describe");
        Set<String> uncalled = new TreeSet<>();
        for (String f : headerFunctions()) {
            if (excluded.contains(f)) {
                continue;
            }
            if (!Pattern.compile("(?i)\\blib\\." + f + "\\(").matcher(callers).find()) {
                uncalled.add(f);
            }
        }
        assertEquals(Set.of(), uncalled, "header functions no Java wrapper calls");
    }
}
