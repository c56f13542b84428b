package dev.kuatia;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/**
 * The validation report of a request: {@code ok} when it has no findings, else every finding in order.
 * {@code json} is the report as kuatia wrote it ({@code {"ok":..,"errors":[..]}}), its messages in the chosen language.
 */
public record Report(boolean ok, List<Finding> errors, String json) {
    /** A report with an unmodifiable copy of the findings. */
    public Report {
        errors = List.copyOf(errors);
    }

    /** Reads the report JSON written by {@code kuatia_invoice_validate}. */
    static Report parse(String json) {
        JsonNode root = Ffi.parse(json);
        List<Finding> errors = new ArrayList<>();
        for (JsonNode f : root.path("errors")) {
            errors.add(Kuatia.finding(f));
        }
        return new Report(root.path("ok").asBoolean(false), errors, json);
    }
}
