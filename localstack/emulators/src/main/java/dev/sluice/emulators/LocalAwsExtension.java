package dev.sluice.emulators;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit 5 extension that gives tests a running {@link LocalAws} stack and fresh {@link
 * ResourceNames}.
 *
 * <pre>{@code
 * @ExtendWith(LocalAwsExtension.class)
 * class OrdersIT {
 *     @Test
 *     void writes(LocalAws aws, ResourceNames names) {
 *         aws.kinesis().createStream(r -> r.streamName(names.name("orders")).shardCount(1));
 *     }
 * }
 * }</pre>
 *
 * <p>The stack starts lazily, once per test JVM, with {@link LocalAwsOptions#defaults()} (or, under
 * the profile {@code -Psluice-localstack}, as LocalStack in a container: {@link LocalStackAws}), and is
 * kept in the root extension context's store, which closes it when all tests have run. Test classes
 * share it, so they must name their resources with {@link ResourceNames}: each test method gets its
 * own random suffix (the same one for all of that method's parameters and its {@code @BeforeEach}
 * and {@code @AfterEach} methods).
 */
public final class LocalAwsExtension implements ParameterResolver {

    private static final ExtensionContext.Namespace NAMESPACE =
            ExtensionContext.Namespace.create(LocalAwsExtension.class);

    /** Creates the extension; JUnit does this for {@code @ExtendWith}. */
    public LocalAwsExtension() {}

    /**
     * The stack of this test JVM, started on first use. It is stored as an {@link AutoCloseable},
     * which JUnit closes when the root context ends.
     */
    public static LocalAws stack(ExtensionContext context) {
        return context.getRoot()
                .getStore(NAMESPACE)
                .getOrComputeIfAbsent(
                        LocalAws.class,
                        // -Psluice-localstack: LocalStack in a container behind the same interface
                        key -> LocalStackProfile.selected()
                                ? LocalStackAws.start()
                                : LocalAws.start(LocalAwsOptions.defaults()),
                        LocalAws.class);
    }

    @Override
    public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        Class<?> type = parameterContext.getParameter().getType();
        return type == LocalAws.class || type == ResourceNames.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        Class<?> type = parameterContext.getParameter().getType();
        if (type == LocalAws.class) {
            return stack(extensionContext);
        }
        // keyed by the context's id so that a method never inherits its class's names
        return extensionContext
                .getStore(NAMESPACE)
                .getOrComputeIfAbsent(
                        ResourceNames.class.getName() + "@" + extensionContext.getUniqueId(),
                        key -> ResourceNames.random(),
                        ResourceNames.class);
    }
}
