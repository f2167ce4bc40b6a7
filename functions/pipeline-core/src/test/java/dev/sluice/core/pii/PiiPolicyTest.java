package dev.sluice.core.pii;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.core.TestFiles;
import dev.sluice.core.pii.PiiField.Action;
import dev.sluice.core.testing.Events;
import java.io.IOException;
import org.junit.jupiter.api.Test;

class PiiPolicyTest {

    static final Tokenizer TOKENIZER = new Tokenizer(TokenizerTest.KEY);

    static JsonNode json(String text) {
        try {
            return TestFiles.MAPPER.readTree(text.replace('\'', '"'));
        } catch (IOException e) {
            throw new IllegalArgumentException(e);
        }
    }

    static ObjectNode event(String text) {
        return (ObjectNode) json(text);
    }

    static PiiPolicy policy(String schema) {
        return PiiPolicy.fromSchema(json(schema));
    }

    // --- the real payments schema ---

    @Test
    void paymentsSchemaMasksTheCardNumberAndTokenizesTheEmail() {
        PiiPolicy policy = PiiPolicy.of(TestFiles.schemas().schema("payments.transaction.v1"));

        assertThat(policy.fields())
                .containsExactly(
                        new PiiField("/payload/cardNumber", Action.MASK),
                        new PiiField("/payload/email", Action.TOKENIZE));
        assertThat(policy.needsTokenizer()).isTrue();
    }

    @Test
    void realPaymentIsMaskedAndTokenizedAndOtherwiseUnchanged() throws IOException {
        PiiPolicy policy = PiiPolicy.of(TestFiles.schemas().schema("payments.transaction.v1"));
        ObjectNode event = Events.fixtureNode("payment-valid.json");
        ObjectNode original = event.deepCopy();

        policy.apply(event, TOKENIZER);

        assertThat(event.at("/payload/cardNumber").textValue()).isEqualTo("************1111");
        assertThat(event.at("/payload/email").textValue()).isEqualTo(TOKENIZER.token("j.devries@example.nl"));
        ((ObjectNode) original.get("payload")).put("cardNumber", "************1111");
        ((ObjectNode) original.get("payload")).put("email", TOKENIZER.token("j.devries@example.nl"));
        assertThat(event).isEqualTo(original);
        String json = event.toString();
        assertThat(json).doesNotContain("4111111111111111").doesNotContain("j.devries@example.nl");
    }

    @Test
    void theSameEmailGivesTheSameTokenInEveryEvent() throws IOException {
        PiiPolicy policy = PiiPolicy.of(TestFiles.schemas().schema("payments.transaction.v1"));
        ObjectNode first = Events.payment().node();
        ObjectNode second = Events.payment().node();

        policy.apply(first, TOKENIZER);
        policy.apply(second, new Tokenizer(TokenizerTest.KEY));

        assertThat(first.at("/payload/email")).isEqualTo(second.at("/payload/email"));
    }

    // --- actions ---

    @Test
    void dropRemovesTheField() {
        PiiPolicy policy =
                policy("{'properties': {'ssn': {'type': 'string', 'x-pii': 'drop'}, 'name': {'type': 'string'}}}");
        ObjectNode event = event("{'ssn': '123-45-6789', 'name': 'Ann'}");

        policy.apply(event, null);

        assertThat(event).isEqualTo(event("{'name': 'Ann'}"));
        assertThat(policy.needsTokenizer()).isFalse();
    }

    @Test
    void absentAndNullFieldsAreLeftAlone() {
        PiiPolicy policy = policy("{'properties': {'a': {'x-pii': 'drop'}, 'b': {'x-pii': 'mask'},"
                + " 'c': {'x-pii': 'tokenize'}, 'd': {'properties': {'e': {'x-pii': 'mask'}}}}}");
        ObjectNode event = event("{'a': null, 'b': null, 'x': 1}");

        policy.apply(event, TOKENIZER);

        assertThat(event).isEqualTo(event("{'a': null, 'b': null, 'x': 1}"));
    }

    @Test
    void numbersAndBooleansAreTransformedThroughTheirJsonText() {
        PiiPolicy policy = policy("{'properties': {'pan': {'x-pii': 'mask'}, 'pin': {'x-pii': 'mask'},"
                + " 'flag': {'x-pii': 'mask'}, 'account': {'x-pii': 'tokenize'}}}");
        ObjectNode event = event("{'pan': 4111111111111111, 'pin': 1234, 'flag': true, 'account': 42}");

        policy.apply(event, TOKENIZER);

        assertThat(event)
                .isEqualTo(event("{'pan': '************1111', 'pin': '****', 'flag': '****', 'account': '"
                        + TOKENIZER.token("42") + "'}"));
    }

    @Test
    void annotatedObjectHasEveryScalarInsideTransformed() {
        PiiPolicy policy = policy("{'properties': {'address': {'type': 'object', 'x-pii': 'mask',"
                + " 'properties': {'street': {'type': 'string'}, 'zip': {'type': 'string'}}}}}");
        ObjectNode event = event(
                "{'address': {'street': 'Damrak 1', 'zip': '1012LG', 'lines': ['a', null, 7], 'extra': {'x': 'yz'}}}");

        policy.apply(event, null);

        assertThat(event)
                .isEqualTo(event("{'address': {'street': '********', 'zip': '******', 'lines': ['*', null, '*'],"
                        + " 'extra': {'x': '**'}}}"));
    }

    // --- where annotations are found ---

    @Test
    void nestedObjectsAndArraysOfObjectsAreFollowed() {
        PiiPolicy policy = policy("""
                {'type': 'object', 'properties': {
                  'customer': {'type': 'object', 'properties': {
                    'contact': {'type': 'object', 'properties': {
                      'email': {'type': 'string', 'x-pii': 'tokenize'},
                      'phone': {'type': 'string', 'x-pii': 'drop'}}}}},
                  'lines': {'type': 'array', 'items': {'type': 'object', 'properties': {
                    'sku': {'type': 'string'},
                    'giftCard': {'type': 'string', 'x-pii': 'mask'},
                    'recipients': {'type': 'array', 'items': {'type': 'object', 'properties': {
                      'email': {'type': 'string', 'x-pii': 'tokenize'}}}}}}},
                  'tags': {'type': 'array', 'items': {'type': 'string', 'x-pii': 'tokenize'}},
                  'notes': {'type': 'array', 'items': {'x-pii': 'drop'}}}}
                """);

        assertThat(policy.fields())
                .containsExactly(
                        new PiiField("/customer/contact/email", Action.TOKENIZE),
                        new PiiField("/customer/contact/phone", Action.DROP),
                        new PiiField("/lines/*/giftCard", Action.MASK),
                        new PiiField("/lines/*/recipients/*/email", Action.TOKENIZE),
                        new PiiField("/tags/*", Action.TOKENIZE),
                        new PiiField("/notes/*", Action.DROP));

        ObjectNode event = event("""
                {'customer': {'contact': {'email': 'a@b.c', 'phone': '+31 6 1234'}, 'id': 'c1'},
                 'lines': [
                   {'sku': 's1', 'giftCard': '6011000990139424', 'recipients': [{'email': 'x@y.z'}, null, {}]},
                   {'sku': 's2'},
                   null],
                 'tags': ['t1', null, 't2'],
                 'notes': ['call me', 'at home']}
                """);
        policy.apply(event, TOKENIZER);

        assertThat(event)
                .isEqualTo(event("{'customer': {'contact': {'email': '" + TOKENIZER.token("a@b.c")
                        + "'}, 'id': 'c1'}, 'lines': [{'sku': 's1', 'giftCard': '************9424', 'recipients': [{'email': '"
                        + TOKENIZER.token("x@y.z") + "'}, null, {}]}, {'sku': 's2'}, null], 'tags': ['"
                        + TOKENIZER.token("t1") + "', null, '" + TOKENIZER.token("t2") + "'], 'notes': []}"));
    }

    @Test
    void referencesWithinTheDocumentAreFollowed() {
        PiiPolicy policy = policy("""
                {'$id': 'urn:test:orders.v1',
                 '$defs': {
                   'contact': {'type': 'object', 'properties': {'email': {'$ref': '#/$defs/email'}}},
                   'email': {'type': 'string', 'x-pii': 'tokenize'},
                   'card': {'$anchor': 'card', 'type': 'string', 'x-pii': 'mask'},
                   'a/b': {'x-pii': 'drop'}},
                 'properties': {
                   'buyer': {'$ref': '#/$defs/contact'},
                   'seller': {'$ref': 'urn:test:orders.v1#/$defs/contact'},
                   'card': {'$ref': '#card'},
                   'secret': {'$ref': '#/$defs/a~1b'},
                   'escaped': {'$ref': '#/%24defs/email'}}}
                """);

        assertThat(policy.fields())
                .containsExactly(
                        new PiiField("/buyer/email", Action.TOKENIZE),
                        new PiiField("/seller/email", Action.TOKENIZE),
                        new PiiField("/card", Action.MASK),
                        new PiiField("/secret", Action.DROP),
                        new PiiField("/escaped", Action.TOKENIZE));
    }

    @Test
    void annotationsInCombinedSubschemasApply() {
        PiiPolicy policy = policy("""
                {'allOf': [{'properties': {'a': {'x-pii': 'mask'}}}],
                 'anyOf': [{'properties': {'b': {'x-pii': 'drop'}}}, {'properties': {'c': {'x-pii': 'tokenize'}}}],
                 'oneOf': [{'properties': {'d': {'x-pii': 'drop'}}}],
                 'if': {'properties': {'kind': {'const': 'x'}}},
                 'then': {'properties': {'e': {'x-pii': 'drop'}}},
                 'else': {'properties': {'f': {'x-pii': 'drop'}}},
                 'dependentSchemas': {'a': {'properties': {'g': {'x-pii': 'drop'}}}},
                 'properties': {'a': {'type': 'string'}}}
                """);

        assertThat(policy.fields())
                .extracting(PiiField::path)
                .containsExactlyInAnyOrder("/a", "/b", "/c", "/d", "/e", "/f", "/g");
    }

    @Test
    void additionalPropertiesCoverEveryUndeclaredProperty() {
        PiiPolicy policy = policy("""
                {'properties': {
                  'attributes': {'type': 'object',
                    'properties': {'colour': {'type': 'string'}, 'owner': {'x-pii': 'tokenize'}},
                    'additionalProperties': {'type': 'string', 'x-pii': 'mask'}}}}
                """);
        ObjectNode event =
                event("{'attributes': {'colour': 'red', 'owner': 'ann', 'nickname': 'annie', 'pet': 'rex'}}");

        policy.apply(event, TOKENIZER);

        assertThat(policy.fields())
                .containsExactly(
                        new PiiField("/attributes/owner", Action.TOKENIZE),
                        new PiiField("/attributes/{additionalProperties}", Action.MASK));
        assertThat(event)
                .isEqualTo(event("{'attributes': {'colour': 'red', 'owner': '" + TOKENIZER.token("ann")
                        + "', 'nickname': '*****', 'pet': '***'}}"));
    }

    @Test
    void additionalPropertiesThatDropRemoveEveryUndeclaredProperty() {
        PiiPolicy policy = policy(
                "{'properties': {'m': {'properties': {'keep': {}}, 'additionalProperties': {'x-pii': 'drop'}}}}");
        ObjectNode event = event("{'m': {'keep': 1, 'a': 2, 'b': {'c': 3}}}");

        policy.apply(event, null);

        assertThat(event).isEqualTo(event("{'m': {'keep': 1}}"));
    }

    @Test
    void propertyNamesWithSlashOrTildeAreEscapedInPaths() {
        assertThat(policy("{'properties': {'a/b': {'properties': {'c~d': {'x-pii': 'drop'}}}}}")
                        .fields())
                .containsExactly(new PiiField("/a~1b/c~0d", Action.DROP));
    }

    @Test
    void annotationsInsideADropAreRedundant() {
        PiiPolicy policy = policy("""
                {'$defs': {'person': {'properties': {'email': {'x-pii': 'tokenize'}, 'name': {}}}},
                 'properties': {'referrer': {'$ref': '#/$defs/person', 'x-pii': 'drop'},
                                'buyer': {'$ref': '#/$defs/person'}}}
                """);

        assertThat(policy.fields())
                .containsExactly(new PiiField("/referrer", Action.DROP), new PiiField("/buyer/email", Action.TOKENIZE));
    }

    @Test
    void recursiveReferencesWithoutPersonalDataAreFine() {
        PiiPolicy policy = policy("""
                {'$defs': {'tree': {'properties': {'label': {}, 'children': {'items': {'$ref': '#/$defs/tree'}}}}},
                 'properties': {'root': {'$ref': '#/$defs/tree'}, 'email': {'x-pii': 'tokenize'}}}
                """);

        assertThat(policy.fields()).containsExactly(new PiiField("/email", Action.TOKENIZE));
    }

    @Test
    void schemaWithoutAnnotationsGivesAnEmptyPolicyThatChangesNothing() {
        PiiPolicy policy = policy("{'properties': {'a': {'type': 'string'}}}");
        ObjectNode event = event("{'a': 'x'}");

        policy.apply(event, null);

        assertThat(policy.isEmpty()).isTrue();
        assertThat(event).isEqualTo(event("{'a': 'x'}"));
    }

    @Test
    void eventsOfAnotherShapeAreLeftAlone() {
        PiiPolicy policy = policy("{'properties': {'payload': {'properties': {'card': {'x-pii': 'mask'}}},"
                + " 'list': {'items': {'properties': {'e': {'x-pii': 'drop'}}}}}}");
        ObjectNode event = event("{'payload': 'not an object', 'list': {'e': 'not an array'}}");

        policy.apply(event, null);

        assertThat(event).isEqualTo(event("{'payload': 'not an object', 'list': {'e': 'not an array'}}"));
    }

    // --- what fails, and how clearly ---

    @Test
    void unknownActionNamesThePathAndTheValue() {
        assertThatThrownBy(() -> policy("{'properties': {'payload': {'properties': {'email': {'x-pii': 'encrypt'}}}}}"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("/payload/email")
                .hasMessageContaining("'encrypt'")
                .hasMessageContaining("tokenize, mask or drop");
    }

    @Test
    void nonStringActionNamesThePathAndTheValue() {
        assertThatThrownBy(() -> policy("{'properties': {'email': {'x-pii': true}}}"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("/email")
                .hasMessageContaining("true");
    }

    @Test
    void unknownActionInTheCatalogNamesTheSchema() {
        assertThatThrownBy(() -> PiiField.Action.fromKeyword("Mask"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'Mask'");
    }

    @Test
    void referenceOutsideTheDocumentFails() {
        assertThatThrownBy(() -> policy("{'properties': {'a': {'$ref': 'common.json#/$defs/email'}}}"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("common.json#/$defs/email")
                .hasMessageContaining("/a");
        assertThatThrownBy(() -> policy("{'properties': {'a': {'$ref': '#/$defs/missing'}}}"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("#/$defs/missing");
    }

    @Test
    void recursiveReferenceThatReachesPersonalDataFails() {
        assertThatThrownBy(() -> policy("""
                        {'$defs': {'person': {'properties': {'email': {'x-pii': 'tokenize'},
                                                             'friends': {'items': {'$ref': '#/$defs/person'}}}}},
                         'properties': {'person': {'$ref': '#/$defs/person'}}}
                        """))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("recursive")
                .hasMessageContaining("/person/friends/*");
    }

    @Test
    void conflictingActionsOnOnePathFail() {
        assertThatThrownBy(
                        () -> policy(
                                "{'properties': {'a': {'x-pii': 'mask'}}, 'allOf': [{'properties': {'a': {'x-pii': 'tokenize'}}}]}"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("conflicting x-pii at /a")
                .hasMessageContaining("mask")
                .hasMessageContaining("tokenize");
    }

    @Test
    void differentActionInsideAnAnnotatedFieldFails() {
        assertThatThrownBy(() ->
                        policy("{'properties': {'a': {'x-pii': 'mask', 'properties': {'b': {'x-pii': 'tokenize'}}}}}"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("/a/b")
                .hasMessageContaining("inside x-pii 'mask' at /a");
    }

    @Test
    void annotationsWherePathsAreNotComputedFail() {
        assertThatThrownBy(() -> policy("{'patternProperties': {'^e': {'x-pii': 'mask'}}}"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("patternProperties");
        assertThatThrownBy(() -> policy("{'properties': {'t': {'prefixItems': [{'x-pii': 'mask'}]}}}"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("prefixItems at /t");
        assertThatThrownBy(() -> policy("{'$defs': {'e': {'x-pii': 'drop'}}, 'not': {'$ref': '#/$defs/e'}}"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not");
    }

    @Test
    void annotationOnTheRootFails() {
        assertThatThrownBy(() -> policy("{'x-pii': 'drop'}"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("root");
    }

    @Test
    void tokenizingPolicyNeedsATokenizer() {
        PiiPolicy policy = policy("{'properties': {'email': {'x-pii': 'tokenize'}}}");

        assertThatThrownBy(() -> policy.apply(event("{'email': 'a@b.c'}"), null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("/email");
    }

    @Test
    void fieldsCannotBeChanged() {
        PiiPolicy policy = policy("{'properties': {'email': {'x-pii': 'tokenize'}}}");

        assertThatThrownBy(() -> policy.fields().clear()).isInstanceOf(UnsupportedOperationException.class);
        assertThat(policy.toString()).contains("/email").contains("TOKENIZE");
    }
}
