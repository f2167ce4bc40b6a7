package dev.sluice.emulators;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;

/** Loopback port helpers. */
final class FreePorts {

    private FreePorts() {}

    /**
     * A loopback port that was free a moment ago. Another process may take it before the emulator
     * binds it; callers retry once with a fresh port when that happens.
     */
    static int pick() {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(false);
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free loopback port", e);
        }
    }

    /** Whether something accepts TCP connections on the loopback port. */
    static boolean accepts(int port, int timeoutMillis) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), timeoutMillis);
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
