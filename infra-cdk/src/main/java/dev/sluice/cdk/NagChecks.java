package dev.sluice.cdk;

import io.github.cdklabs.cdknag.AwsSolutionsChecks;
import io.github.cdklabs.cdknag.NagPackProps;
import io.github.cdklabs.cdknag.ServerlessChecks;
import java.util.List;
import software.amazon.awscdk.App;
import software.amazon.awscdk.Aspects;
import software.amazon.awscdk.Stack;
import software.amazon.awscdk.assertions.Annotations;
import software.amazon.awscdk.assertions.Match;
import software.amazon.awscdk.cxapi.SynthesisMessage;

/**
 * Runs the cdk-nag AwsSolutions and Serverless packs on an app and counts what they report. The
 * findings are collected through the CDK's annotations ({@link Annotations#fromStack}), never
 * through a Java-side {@code NagLogger} (jsii callbacks overflow the thread stack, see
 * BUILD-NOTES).
 */
public final class NagChecks {

    /** Messages of the two packs' findings. */
    public static final String FINDING = "AwsSolutions-.*|Serverless-.*";

    /** Info messages cdk-nag logs for a suppressed finding ({@code logIgnores}). */
    public static final String SUPPRESSED =
            "CdkNagSuppression.*(AwsSolutions|Serverless)-.* was triggered but suppressed";

    /** What the packs reported for one stack. */
    public record Counts(int errors, int warnings, int suppressed) {
        /** {@code nag_errors=… nag_warnings=… nag_suppressed=…}. */
        @Override
        public String toString() {
            return "nag_errors=" + errors + " nag_warnings=" + warnings + " nag_suppressed=" + suppressed;
        }
    }

    private NagChecks() {}

    /**
     * Adds both packs to every stack of the app; call before the app is synthesized. Suppressed
     * findings are logged as info annotations so that they can be counted.
     */
    public static void apply(App app) {
        NagPackProps props = NagPackProps.builder()
                .verbose(true)
                .logIgnores(true)
                .reports(false)
                .build();
        Aspects.of(app).add(new AwsSolutionsChecks(props));
        Aspects.of(app).add(new ServerlessChecks(props));
    }

    /** The unsuppressed errors of the packs on this stack (synthesizes the app if needed). */
    public static List<SynthesisMessage> errors(Stack stack) {
        return Annotations.fromStack(stack).findError("*", Match.stringLikeRegexp(FINDING));
    }

    /** The unsuppressed warnings of the packs on this stack. */
    public static List<SynthesisMessage> warnings(Stack stack) {
        return Annotations.fromStack(stack).findWarning("*", Match.stringLikeRegexp(FINDING));
    }

    /** The findings the packs reported as suppressed on this stack. */
    public static List<SynthesisMessage> suppressed(Stack stack) {
        return Annotations.fromStack(stack).findInfo("*", Match.stringLikeRegexp(SUPPRESSED));
    }

    /** The counts for this stack, for a synth report ({@code nag_errors}, {@code nag_suppressed}). */
    public static Counts count(Stack stack) {
        return new Counts(
                errors(stack).size(), warnings(stack).size(), suppressed(stack).size());
    }
}
