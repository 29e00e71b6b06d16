package dev.skillgate.signature.internal;

import dev.skillgate.model.ErrorCode;
import java.util.Base64;

/**
 * Decodes standard, padded base64 and accepts only the canonical spelling: re-encoding the result
 * must give the input back, so unused trailing bits and missing padding are rejected and one value
 * has exactly one text form.
 */
final class Base64Strict {
    private Base64Strict() {}

    static byte[] decode(String text, String what) throws Refusal {
        byte[] decoded;
        try {
            decoded = Base64.getDecoder().decode(text);
        } catch (IllegalArgumentException e) {
            throw new Refusal(ErrorCode.SIGNATURE_FORMAT, what + " is not valid base64");
        }
        if (!Base64.getEncoder().encodeToString(decoded).equals(text)) {
            throw new Refusal(ErrorCode.SIGNATURE_FORMAT, what + " is not canonical padded base64");
        }
        return decoded;
    }
}
