package dev.leasehold.spring;

import dev.leasehold.Lease;
import dev.leasehold.Leadership;
import dev.leasehold.LeadershipListener;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.SmartLifecycle;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs the {@link Leadership} bean for as long as the context runs: starts it with the context (in
 * the last phase, once every other bean is up), resigns on stop (in the first phase of the shutdown,
 * so another instance leads before this one's beans go away), and turns its events into Spring
 * application events.
 */
final class LeadershipLifecycle implements SmartLifecycle, LeadershipListener {

    private final Leadership leadership;
    private final ApplicationEventPublisher events;
    private volatile Lease term;
    private volatile boolean running;
    private volatile CompletableFuture<Void> revoked = new CompletableFuture<>();

    /** Longest {@link #stop()} waits for the revocation of the current term to be published. */
    static final Duration REVOKED_WITHIN = Duration.ofSeconds(5);

    LeadershipLifecycle(Leadership leadership, ApplicationEventPublisher events) {
        this.leadership = leadership;
        this.events = events;
    }

    @Override
    public void start() {
        leadership.start(this);
        running = true;
    }

    /**
     * Resigns, then waits (at most {@link #REVOKED_WITHIN}) until the revocation was published, so
     * it reaches the listeners while the context still runs.
     */
    @Override
    public void stop() {
        running = false;
        CompletableFuture<Void> published = revoked;
        boolean leading = leadership.isLeader();
        leadership.resign();
        if (leading) {
            try {
                published.get(REVOKED_WITHIN.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException | TimeoutException late) {
                // The event thread is still busy with the leader's work; the revocation follows later.
            }
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public void onElected(Lease elected) {
        term = elected;
        revoked = new CompletableFuture<>();
        events.publishEvent(new LeadershipGrantedEvent(leadership, elected));
    }

    @Override
    public void onRevoked(String reason) {
        try {
            events.publishEvent(new LeadershipRevokedEvent(leadership, term, reason));
        } finally {
            revoked.complete(null);
        }
    }
}
