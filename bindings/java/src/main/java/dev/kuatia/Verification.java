package dev.kuatia;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The verdict on an XMLDSig signature: {@code valid}, the signed element's {@code Id}, whether the digest and the
 * signature value matched, whether the certificate was valid at the time asked ({@code null} when not asked),
 * the reason when invalid ({@code null} when valid), and the full report ({@code certificate} details included).
 */
public record Verification(boolean valid, String referenceId, boolean digestOk, boolean signatureOk,
        Boolean certificateValidAt, Finding error, JsonNode report) {}
