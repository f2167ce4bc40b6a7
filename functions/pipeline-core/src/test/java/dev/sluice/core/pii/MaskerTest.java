package dev.sluice.core.pii;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class MaskerTest {

    @Test
    void cardNumberKeepsItsLastFourDigits() {
        assertThat(Masker.mask("4111111111111111")).isEqualTo("************1111");
        assertThat(Masker.mask("378282246310005")).isEqualTo("***********0005");
        assertThat(Masker.mask("4000056655665556123")).isEqualTo("***************6123");
        assertThat(Masker.mask("601100099990")).isEqualTo("********9990");
    }

    @Test
    void digitStringsOfEightKeepFourButShorterOnesAreMaskedCompletely() {
        assertThat(Masker.mask("12345678")).isEqualTo("****5678");
        assertThat(Masker.mask("1234567")).isEqualTo("*******");
        assertThat(Masker.mask("12345")).isEqualTo("*****");
    }

    @Test
    void valuesOfAtMostFourCharactersAreMaskedCompletely() {
        assertThat(Masker.mask("1234")).isEqualTo("****");
        assertThat(Masker.mask("123")).isEqualTo("***");
        assertThat(Masker.mask("ab")).isEqualTo("**");
        assertThat(Masker.mask("7")).isEqualTo("*");
    }

    @Test
    void textKeepsOnlyItsLengthInCodePoints() {
        assertThat(Masker.mask("j.devries@example.nl")).isEqualTo("*".repeat(20));
        assertThat(Masker.mask("zoë")).isEqualTo("***");
        assertThat(Masker.mask("😀😀")).isEqualTo("**");
        assertThat(Masker.mask("x".repeat(100))).isEqualTo("*".repeat(100));
    }

    @Test
    void formattedOrNonAsciiDigitsAreText() {
        assertThat(Masker.mask("4111 1111 1111 1111")).isEqualTo("*".repeat(19));
        assertThat(Masker.mask("4111-1111-1111-1111")).isEqualTo("*".repeat(19));
        assertThat(Masker.mask("١٢٣٤٥٦٧٨٩٠")).isEqualTo("*".repeat(10)); // Arabic-Indic digits
    }

    @Test
    void emptyStaysEmpty() {
        assertThat(Masker.mask("")).isEmpty();
    }
}
