package dev.sluice.core.definition;

import com.fasterxml.jackson.core.JsonPointer;

/** Field paths as definitions write them ({@code payload.merchant.id}) and as code reads events. */
public final class FieldPaths {

    private FieldPaths() {}

    /** {@code payload.merchant.id} → the JSON pointer {@code /payload/merchant/id}. */
    public static JsonPointer pointer(String dottedPath) {
        return JsonPointer.compile("/" + dottedPath.replace('.', '/'));
    }
}
