package dev.sluice.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import dev.sluice.core.SluiceException;
import dev.sluice.core.stage.SinkException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The layers, checked over the compiled main classes of every module this module sees (it depends
 * on all of them, the benchmarks too): pure core ← AWS adapters ← Lambda / KCL entry points and the
 * CDK app; emulators ← local runtime ← verification ← CLI. A violation fails the build with the
 * offending dependency named.
 */
class ArchitectureTest {

    /** Packages of the deployed code and its infrastructure: functions/ and infra-cdk/. */
    private static final String[] DEPLOYED = {
        "dev.sluice.core..", "dev.sluice.aws..", "dev.sluice.lambda..", "dev.sluice.kcl..", "dev.sluice.cdk.."
    };

    /** Packages of the local stack and the load tests: never reached from what is deployed. */
    private static final String[] LOCAL_AND_LOAD = {
        "dev.sluice.local..",
        "dev.sluice.verify..",
        "dev.sluice.cli..",
        "dev.sluice.load..",
        "dev.sluice.emulators..",
        "dev.sluice.generators..",
        "dev.sluice.planner..",
        "dev.sluice.report..",
        "dev.sluice.bench..",
    };

    private static final java.util.regex.Pattern SLUICE_JAR =
            java.util.regex.Pattern.compile(".*/sluice-[A-Za-z0-9.-]+\\.jar!/.*");

    private static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        classes = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                // only Sluice's own modules: their classes directories (a reactor test run) or their
                // jars, sluice-<module>-<version>.jar (after package, as in verify); scanning every
                // third-party jar for dev.sluice would take minutes. A rule that matches no class
                // fails (ArchUnit's failOnEmptyShould), so a filter that lets nothing in cannot pass.
                .withImportOption(location -> location.contains("/target/classes/") || location.matches(SLUICE_JAR))
                .importPackages("dev.sluice");
    }

    @Test
    void coreKnowsNoAwsSdkQuarkusLocalStackOrLoadTests() {
        check(noClasses()
                .that()
                .resideInAPackage("dev.sluice.core..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(concat(
                        new String[] {
                            "software.amazon..",
                            "com.amazonaws..",
                            "io.quarkus..",
                            "dev.sluice.aws..",
                            "dev.sluice.lambda..",
                            "dev.sluice.kcl..",
                            "dev.sluice.cdk.."
                        },
                        LOCAL_AND_LOAD)));
    }

    @Test
    void deployedCodeDependsOnNothingLocalOrLoad() {
        check(noClasses()
                .that()
                .resideInAnyPackage(DEPLOYED)
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(LOCAL_AND_LOAD));
    }

    @Test
    void awsAdaptersKnowNoEntryPoint() {
        check(noClasses()
                .that()
                .resideInAPackage("dev.sluice.aws..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("dev.sluice.lambda..", "dev.sluice.kcl..", "dev.sluice.cdk..", "io.quarkus.."));
    }

    @Test
    void emulatorsKnowNothingOfSluice() {
        check(noClasses()
                .that()
                .resideInAPackage("dev.sluice.emulators..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(concat(DEPLOYED, new String[] {
                    "dev.sluice.local..", "dev.sluice.verify..", "dev.sluice.cli..", "dev.sluice.load.."
                })));
    }

    @Test
    void localEventSourceMappingKnowsNoKcl() {
        check(noClasses()
                .that()
                .resideInAPackage("dev.sluice.local.esm..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("dev.sluice.local.kcl..", "dev.sluice.kcl..", "software.amazon.kinesis.."));
    }

    @Test
    void plannerKnowsNothingOfTheLoadHarness() {
        // the harness prices its runs with the planner's CostModel, handing it plain request counts
        check(noClasses()
                .that()
                .resideInAPackage("dev.sluice.planner..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "dev.sluice.load..", "dev.sluice.verify..", "dev.sluice.local..", "dev.sluice.cli.."));
    }

    @Test
    void nothingDependsOnTheCli() {
        check(noClasses()
                .that()
                .resideOutsideOfPackage("dev.sluice.cli..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("dev.sluice.cli.."));
    }

    @Test
    void sluiceExceptionsShareOneUncheckedRoot() {
        // the public exceptions callers see; SinkException stays checked (its retryable flag is part
        // of every sink's contract); private control-flow signals (a lost optimistic-lock race, a
        // keyword the fast validator hands to the reference validator, an injected crash) are not
        // errors of Sluice; the emulators and the planner know nothing of the core
        check(classes()
                .that()
                .areAssignableTo(Throwable.class)
                .and()
                .arePublic()
                .and()
                .areTopLevelClasses()
                .and()
                .resideInAnyPackage(concat(DEPLOYED, new String[] {
                    "dev.sluice.local..", "dev.sluice.verify..", "dev.sluice.cli..", "dev.sluice.load.."
                }))
                .and()
                .doNotHaveFullyQualifiedName(SinkException.class.getName())
                .should()
                .beAssignableTo(SluiceException.class));
    }

    @Test
    void noPackageCycles() {
        check(slices().matching("dev.sluice.(**)").should().beFreeOfCycles());
    }

    private static void check(ArchRule rule) {
        rule.check(classes);
    }

    private static String[] concat(String[] first, String[] second) {
        String[] all = java.util.Arrays.copyOf(first, first.length + second.length);
        System.arraycopy(second, 0, all, first.length, second.length);
        return all;
    }
}
