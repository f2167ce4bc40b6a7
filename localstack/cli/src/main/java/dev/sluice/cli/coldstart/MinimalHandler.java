package dev.sluice.cli.coldstart;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestStreamHandler;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * The cold-start baseline: a handler that does nothing (it reads the event and answers an empty
 * list of batch item failures), loaded by the same runtime interface client in the same kind of
 * JVM. Its task root holds this one class.
 */
public final class MinimalHandler implements RequestStreamHandler {

    @Override
    public void handleRequest(InputStream input, OutputStream output, Context context) throws IOException {
        input.readAllBytes();
        output.write("{\"batchItemFailures\":[]}".getBytes(StandardCharsets.UTF_8));
    }
}
