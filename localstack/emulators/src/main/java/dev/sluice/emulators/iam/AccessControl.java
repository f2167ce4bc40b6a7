package dev.sluice.emulators.iam;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The stack's access control: the current {@link Authorizer} every gate asks, and the count and log
 * of denials. Until a runtime installs its authorizer only the stack's own key is known, as the
 * account's administrator; any other key is unknown.
 */
public final class AccessControl {

    private static final Logger LOG = LoggerFactory.getLogger("dev.sluice.iam.AccessDenied");
    private static final int KEPT = 1000;

    private final String adminKeyId;
    private final String adminSecret;
    private final SignatureVerifier signatures;
    private volatile Authorizer authorizer;
    private final AtomicLong requests = new AtomicLong();
    private final AtomicLong denied = new AtomicLong();
    private final List<Decision> recent = new ArrayList<>();
    private final List<Consumer<Decision>> listeners = new CopyOnWriteArrayList<>();
    private final List<Cut> cuts = new CopyOnWriteArrayList<>();
    private final List<Held> holds = new CopyOnWriteArrayList<>();

    /**
     * A partition: one access key's calls that the gates black-hole while it lasts (each held at most
     * {@code hold}, then its connection dropped unanswered; {@link java.time.Duration#ZERO}: dropped at
     * once, as a reset connection).
     */
    private record Cut(String accessKeyId, Predicate<ServiceCall> calls, java.time.Duration hold) {}

    /** The longest a black-holed request is held before its connection is dropped. */
    public static final java.time.Duration BLACK_HOLE = java.time.Duration.ofMinutes(5);

    /**
     * Access control that takes a request's identity from its access key id alone and does not
     * verify signatures: for tests of the request mapping only. The local stack uses {@link
     * #AccessControl(String, String, java.time.Clock)}.
     */
    public AccessControl(String adminKeyId) {
        this.adminKeyId = adminKeyId;
        this.adminSecret = null;
        this.signatures = null;
        this.authorizer = adminOnly(adminKeyId);
    }

    /**
     * Access control that verifies every request's SigV4 signature ({@link SignatureVerifier}) with
     * the secret of its access key id — the administrator's, or the one the authorizer knows ({@link
     * Authorizer#secretAccessKey}) — before it authorizes it.
     */
    public AccessControl(String adminKeyId, String adminSecret, java.time.Clock clock) {
        this.adminKeyId = adminKeyId;
        this.adminSecret = Objects.requireNonNull(adminSecret, "adminSecret");
        this.signatures = new SignatureVerifier(clock);
        this.authorizer = adminOnly(adminKeyId);
    }

    /** Whether the gates verify signatures before they authorize. */
    public boolean verifiesSignatures() {
        return signatures != null;
    }

    /** The secret of an access key: the administrator's, or the authorizer's; null when unknown. */
    private String secretOf(String accessKeyId) {
        if (adminKeyId.equals(accessKeyId)) {
            return adminSecret;
        }
        return authorizer.secretAccessKey(accessKeyId);
    }

    /**
     * Verifies the request's signature (when this control verifies signatures), then authorizes the
     * call as the access key it was signed with; a refused signature is counted and logged as a
     * denial.
     *
     * @param region the region the signature's scope must name
     */
    public Decision authorize(GateRequest request, String region, ServiceCall call) {
        Decision refused = verify(request, region, call);
        return refused != null ? refused : authorize(request.accessKeyId(), call);
    }

    /**
     * Verifies the request's signature only (when this control verifies signatures): null when it
     * is valid, else the refusal, counted and logged as a denial.
     */
    public Decision verify(GateRequest request, String region, ServiceCall call) {
        if (signatures == null) {
            return null;
        }
        SignatureVerifier.Result result = signatures.verify(request, call.service(), region, this::secretOf);
        if (result.valid()) {
            return null;
        }
        Decision refused = result.failure() == SignatureVerifier.Failure.MISSING
                ? new Decision.UnknownKey(null)
                : result.failure() == SignatureVerifier.Failure.UNKNOWN_KEY
                        ? new Decision.UnknownKey(result.accessKeyId())
                        : new Decision.BadSignature(result.accessKeyId(), result.failure(), result.message());
        requests.incrementAndGet();
        return refused(refused, call);
    }
    /** Allows everything to the given key, knows no other. */
    public static Authorizer adminOnly(String adminKeyId) {
        return (key, call) -> adminKeyId.equals(key) ? Decision.ALLOWED : new Decision.UnknownKey(key);
    }

    /** The access key id of the stack's own clients (the local administrator). */
    public String adminKeyId() {
        return adminKeyId;
    }

    /** Replaces the authorizer (the local runtime's, built from a template). */
    public void authorizer(Authorizer authorizer) {
        this.authorizer = Objects.requireNonNull(authorizer, "authorizer");
    }

    public Authorizer authorizer() {
        return authorizer;
    }

    /**
     * Calls a listener with every denial (fault scenarios collect them) until the returned handle is
     * closed.
     */
    public AutoCloseable onDenial(Consumer<Decision> listener) {
        listeners.add(listener);
        return () -> listeners.remove(listener);
    }

    /**
     * Cuts one access key off the calls {@code calls} selects, as a network partition would: the gates
     * hold such requests without answering until the cut is healed (closing the returned handle), then
     * drop the connection — the request never reaches the emulator and the caller sees no answer, only
     * its own timeout or a closed connection. Other keys, and this key's other calls, go through.
     */
    public AutoCloseable cut(String accessKeyId, Predicate<ServiceCall> calls) {
        return cut(accessKeyId, calls, BLACK_HOLE);
    }

    /**
     * Cuts one access key off the calls {@code calls} selects, each request held at most {@code hold}
     * (or until the cut heals) and then dropped unanswered: {@link #BLACK_HOLE} for a silent partition
     * (the caller waits for its own timeout), {@link java.time.Duration#ZERO} for an unreachable
     * service whose connections are reset at once (the caller's retries fail fast).
     */
    public AutoCloseable cut(String accessKeyId, Predicate<ServiceCall> calls, java.time.Duration hold) {
        Cut cut = new Cut(
                Objects.requireNonNull(accessKeyId, "accessKeyId"),
                Objects.requireNonNull(calls, "calls"),
                Objects.requireNonNull(hold, "hold"));
        cuts.add(cut);
        return () -> {
            cuts.remove(cut);
            synchronized (cuts) {
                cuts.notifyAll();
            }
        };
    }

    /** Whether a call by this key is cut off right now. */
    public boolean isCut(String accessKeyId, ServiceCall call) {
        return cutHold(accessKeyId, call) != null;
    }

    /**
     * How long a call by this key is held before it is dropped, if it is cut off right now (the
     * longest hold of the cuts that match it), else null.
     */
    public java.time.Duration cutHold(String accessKeyId, ServiceCall call) {
        java.time.Duration hold = null;
        for (Cut cut : cuts) {
            if (cut.accessKeyId().equals(accessKeyId) && cut.calls().test(call)) {
                hold = hold == null || cut.hold().compareTo(hold) > 0 ? cut.hold() : hold;
            }
        }
        return hold;
    }

    /**
     * Holds a cut-off call until its cut heals or {@code max} passes.
     *
     * @return whether it is still cut off
     */
    public boolean holdWhileCut(String accessKeyId, ServiceCall call, java.time.Duration max) {
        long deadline = System.nanoTime() + max.toNanos();
        synchronized (cuts) {
            while (isCut(accessKeyId, call)) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return true;
                }
                try {
                    cuts.wait(Math.max(1, Math.min(left / 1_000_000, 500)));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Delays one access key's calls that {@code calls} selects, as a network that holds packets and
     * delivers them late: the gates keep each such request, unanswered and not yet sent on, until
     * {@link Held#release()} (or {@code max} passes, and then it is dropped unanswered as a
     * partition drops it); released, it goes on to the authorizer and the emulator as if it had just
     * arrived, and its answer is recorded ({@link Held#landed()}) and sent to the caller if the caller
     * still waits. Unlike a {@link #cut}, nothing is lost: a request the caller gave up on (its own
     * time-out) and sent again lands twice, as it would in AWS. A cut of the same call wins over a
     * hold.
     */
    public Held hold(String accessKeyId, Predicate<ServiceCall> calls, java.time.Duration max) {
        Held held = new Held(
                Objects.requireNonNull(accessKeyId, "accessKeyId"),
                Objects.requireNonNull(calls, "calls"),
                Objects.requireNonNull(max, "max"));
        holds.add(held);
        return held;
    }

    /** The hold that delays a call by this key right now, if one does; else null. */
    public Held heldBy(String accessKeyId, ServiceCall call) {
        for (Held held : holds) {
            if (!held.released() && held.accessKeyId.equals(accessKeyId) && held.calls.test(call)) {
                return held;
            }
        }
        return null;
    }

    /**
     * A held request that was let through: what it asked and what the emulator answered.
     *
     * @param status the emulator's HTTP status, or 0 when it did not answer (not started, or the
     *     request failed on the way)
     * @param errorCode the error code of a refusal ({@code ConditionalCheckFailedException}), or null
     */
    public record Landed(
            String operation, List<AccessRequest> requests, int status, String errorCode, java.time.Instant at) {

        /** Whether the service applied it: answered 2xx. */
        public boolean applied() {
            return status >= 200 && status < 300;
        }
    }

    /** A hold ({@link #hold}): the requests it keeps, until released, and what became of them. */
    public final class Held implements AutoCloseable {
        private final String accessKeyId;
        private final Predicate<ServiceCall> calls;
        private final java.time.Duration max;
        private final java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        private final AtomicLong held = new AtomicLong();
        private final AtomicLong waiting = new AtomicLong();
        private final List<Landed> landed = new CopyOnWriteArrayList<>();
        private final List<String> operations = new CopyOnWriteArrayList<>();
        private volatile java.time.Instant releasedAt;

        private Held(String accessKeyId, Predicate<ServiceCall> calls, java.time.Duration max) {
            this.accessKeyId = accessKeyId;
            this.calls = calls;
            this.max = max;
        }

        /**
         * Keeps a request until the hold is released (the gate's request thread waits here).
         *
         * @return whether it was released in time (else the gate drops it unanswered)
         */
        public boolean await(ServiceCall call) {
            operations.add(call.operation());
            held.incrementAndGet();
            waiting.incrementAndGet();
            try {
                return release.await(max.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            } finally {
                waiting.decrementAndGet();
            }
        }

        /** Records what the emulator answered a released request. */
        public void landed(ServiceCall call, int status, String errorCode) {
            landed.add(new Landed(call.operation(), call.requests(), status, errorCode, java.time.Instant.now()));
        }

        /** Requests held so far (released or not). */
        public long held() {
            return held.get();
        }

        /** The operation of each request held so far, in the order they came. */
        public List<String> operations() {
            return List.copyOf(operations);
        }

        /** Requests being held right now. */
        public long waiting() {
            return waiting.get();
        }

        /** The released requests that reached the emulator, with its answers, in the order they landed. */
        public List<Landed> landed() {
            return List.copyOf(landed);
        }

        public boolean released() {
            return releasedAt != null;
        }

        /** When it was released, or null. */
        public java.time.Instant releasedAt() {
            return releasedAt;
        }

        /** Lets every held request through, and later ones pass without waiting. */
        public synchronized void release() {
            if (releasedAt == null) {
                releasedAt = java.time.Instant.now();
                holds.remove(this);
                release.countDown();
            }
        }

        @Override
        public void close() {
            release();
        }
    }

    /** Authorizes one call, counting and logging a denial (one line: principal, action, resource, reason). */
    public Decision authorize(String accessKeyId, ServiceCall call) {
        requests.incrementAndGet();
        Decision decision;
        try {
            decision = authorizer.authorize(accessKeyId, call);
        } catch (RuntimeException e) {
            LOG.error("the authorizer failed on {} {}; denying", call.service(), call.operation(), e);
            decision = new Decision.Denied(
                    String.valueOf(accessKeyId),
                    call.requests().isEmpty()
                            ? call.operation()
                            : call.requests().get(0).action(),
                    call.requests().isEmpty() ? "*" : call.requests().get(0).resource(),
                    "the local policy evaluator failed: " + e.getMessage(),
                    false);
        }
        return decision instanceof Decision.Allowed ? decision : refused(decision, call);
    }

    private Decision refused(Decision decision, ServiceCall call) {
        {
            denied.incrementAndGet();
            if (decision instanceof Decision.Denied d) {
                LOG.warn(
                        "AccessDenied principal={} action={} resource={} reason=\"{}\"",
                        d.caller(),
                        d.action(),
                        d.resource(),
                        d.reason());
            } else if (decision instanceof Decision.UnknownKey u) {
                LOG.warn(
                        "AccessDenied principal=unknown access_key_id={} action={} reason=\"unrecognized access key\"",
                        u.accessKeyId(),
                        call.service().action(call.operation()));
            } else if (decision instanceof Decision.BadSignature b) {
                LOG.warn(
                        "AccessDenied principal=unknown access_key_id={} action={} reason=\"signature refused: {}: {}\"",
                        b.accessKeyId(),
                        call.service().action(call.operation()),
                        b.failure(),
                        b.message());
            }
            synchronized (recent) {
                if (recent.size() == KEPT) {
                    recent.remove(0);
                }
                recent.add(decision);
            }
            for (Consumer<Decision> listener : listeners) {
                listener.accept(decision);
            }
        }
        return decision;
    }

    /** Requests authorized so far (allowed or not). */
    public long requests() {
        return requests.get();
    }

    /** Requests denied so far. */
    public long denied() {
        return denied.get();
    }

    /** The last (up to 1,000) denials. */
    public List<Decision> recentDenials() {
        synchronized (recent) {
            return List.copyOf(recent);
        }
    }
}
