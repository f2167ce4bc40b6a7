package dev.sluice.core.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.core.TestFiles;
import dev.sluice.core.testing.Events;
import java.io.IOException;
import org.junit.jupiter.api.Test;

class SchemaCatalogTest {

    private final SchemaCatalog catalog = TestFiles.schemas();

    @Test
    void realPaymentIsValid() throws IOException {
        assertThat(catalog.schema("payments.transaction.v1").violations(Events.fixtureNode("payment-valid.json")))
                .isEmpty();
    }

    @Test
    void negativeAmountNamesThePathAndTheRule() throws IOException {
        assertThat(catalog.schema("payments.transaction.v1")
                        .violations(Events.fixtureNode("payment-negative-amount.json")))
                .containsExactly("$.payload.amount: must have an exclusive minimum value of 0 (exclusiveMinimum)");
    }

    @Test
    void formatsAreAssertedNotJustAnnotated() throws IOException {
        ObjectNode event = Events.payment()
                .occurredAt("yesterday at noon")
                .email("not-an-address")
                .node();

        assertThat(catalog.schema("payments.transaction.v1").violations(event))
                .hasSize(2)
                .anySatisfy(v -> assertThat(v).startsWith("$.occurredAt").endsWith("(format)"))
                .anySatisfy(v -> assertThat(v).startsWith("$.payload.email").endsWith("(format)"));
    }

    @Test
    void unknownFieldsAndBadCodesAreViolations() throws IOException {
        ObjectNode event = Events.payment().currency("EURO").node();
        ((ObjectNode) event.get("payload")).put("cvv", "123");

        assertThat(catalog.schema("payments.transaction.v1").violations(event))
                .anySatisfy(v -> assertThat(v).startsWith("$.payload.currency").contains("(enum)"))
                .anySatisfy(v -> assertThat(v).startsWith("$.payload").contains("cvv"));
    }

    @Test
    void schemaIsCompiledOnceAndShared() {
        assertThat(catalog.schema("payments.transaction.v1")).isSameAs(catalog.schema("payments.transaction.v1"));
    }

    @Test
    void knowsWhichSchemasExist() {
        assertThat(catalog.contains("payments.transaction.v1")).isTrue();
        assertThat(catalog.contains("payments.transaction.v2")).isFalse();
        assertThat(catalog.contains("../pom")).isFalse();
        assertThatThrownBy(() -> catalog.schema("payments.refund.v1"))
                .hasMessage("unknown schema 'payments.refund.v1'");
    }

    @Test
    void paymentSchemaMarksItsPiiAndRequiresATimestamp() throws IOException {
        var document = TestFiles.MAPPER.readTree(
                TestFiles.root().resolve("schemas/payments.transaction.v1.json").toFile());

        assertThat(document.at("/properties/payload/properties/cardNumber/x-pii")
                        .asText())
                .isEqualTo("mask");
        assertThat(document.at("/properties/payload/properties/email/x-pii").asText())
                .isEqualTo("tokenize");
        assertThat(document.at("/required").toString()).contains("occurredAt");
    }
}
