package dev.leasehold.redis.internal;

import dev.leasehold.spi.ReleaseSignal;
import dev.leasehold.spi.Wake;
import io.lettuce.core.RedisClient;

import java.time.Duration;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * All waiters of one client share one pub/sub connection, opened on the first wait. Each channel
 * is subscribed once, however many waiters it has (a reference count per channel), and
 * unsubscribed when its last waiter leaves, so waiting costs the server one subscription per
 * contended lock and client, not one per thread. Lettuce re-subscribes after a reconnect;
 * messages sent while disconnected are lost, which the waiters' capped re-check covers.
 *
 * <p>With client channels (see {@link RedisDeployment#clientChannels()}), the same subscription
 * also listens on this client's own channel beside the lock's ({@link #clientChannel}), where a
 * release addresses the one waiter it wakes ({@code lib_wake.lua}): the other clients that wait
 * on the lock do not hear it. Where the server refuses that channel (a Redis 7 ACL user whose
 * channel patterns allow the lock's only), the client listens on the lock's channel alone, where
 * releases then address its waiters.
 *
 * <p>Public so other Redis-based backends (leasehold-redlock) share one per server the same way.
 */
public final class ReleaseChannels implements AutoCloseable {

    /** A waiter's future, parked until a message for it (or for everyone) arrives. */
    private record Parked(String waiter, CompletableFuture<Wake> future) {
    }

    /** One subscribed channel: its waiter count and the futures of waiters parked on it. */
    private static final class Channel {
        int references;
        /** This client's channel beside the lock's, or null without client channels. */
        String own;
        /** When the last reference left; guarded by the map's lock for this channel, as the fields above. */
        long idleSinceNanos;
        boolean expiryScheduled;
        CompletableFuture<Void> subscribed;
        final Queue<Parked> parked = new ConcurrentLinkedQueue<>();

        /** Wakes every parked waiter. */
        void fire() {
            Parked next;
            while ((next = parked.poll()) != null) {
                next.future().complete(Wake.RETRY);
            }
        }

        /** Delivers one message: see {@link ReleaseMessage}. */
        void deliver(String message) {
            ReleaseMessage parsed = ReleaseMessage.parse(message);
            if (parsed.waiter() == null) {
                fire();
                return;
            }
            wake(parsed.waiter(), parsed.wake());
        }

        /** Completes the futures {@code waiter} has parked with {@code why}. */
        void wake(String waiter, Wake why) {
            for (Parked one : parked) {
                if (one.waiter().equals(waiter) && parked.remove(one)) {
                    one.future().complete(why);
                }
            }
        }
    }

    private final PubSubLink.Opener opener;
    private final String description;
    private final Duration linger;
    private final boolean clientChannels;
    private final Map<String, Channel> channels = new ConcurrentHashMap<>();
    /** Each client channel subscribed, to the lock channel it stands beside. */
    private final Map<String, String> besides = new ConcurrentHashMap<>();
    private final AtomicReference<CompletableFuture<PubSubLink>> connection = new AtomicReference<>();

    /**
     * @param linger how long a channel stays subscribed after its last waiter got the lock, so the
     *               next wait on it (the next handoff) needs no SUBSCRIBE and no second attempt
     */
    public ReleaseChannels(RedisClient client, RedisEndpoint endpoint, Duration linger) {
        this(onMessage -> ServerDeployment.open(client, endpoint, onMessage), endpoint.describe(), linger, true);
    }

    /**
     * @param opener         opens the shared pub/sub connection on the first wait
     * @param description    where it is, without credentials, for errors
     * @param linger         as above
     * @param clientChannels whether to listen on this client's own channel beside each lock's too
     */
    public ReleaseChannels(PubSubLink.Opener opener, String description, Duration linger, boolean clientChannels) {
        this.opener = opener;
        this.description = description;
        this.linger = linger;
        this.clientChannels = clientChannels;
    }

    /**
     * The channel beside {@code lockChannel} where releases address the waiter {@code waiter} (and
     * every other waiter of its client): {@code lockChannel}, {@code ':'}, and the first 16 hex
     * digits of the SHA-1 of the part of {@code waiter} before its first {@code ':'} (one client's
     * ids share it; see {@link dev.leasehold.engine.HolderIds}). {@code lib_wake.lua} names it the same way.
     */
    static String clientChannel(String lockChannel, String waiter) {
        int colon = waiter.indexOf(':');
        String prefix = colon < 0 ? waiter : waiter.substring(0, colon);
        return lockChannel + ":" + RedisScript.sha1(prefix).substring(0, 16);
    }

    /** A subscription of the waiter {@code waiter} (its holder id) to {@code channelName}. */
    public ReleaseSignal subscribe(String channelName, String waiter) {
        Channel[] holder = new Channel[1];
        channels.compute(channelName, (name, channel) -> {
            Channel current = channel == null ? new Channel() : channel;
            if (current.subscribed == null) {
                String[] names = {name};
                if (clientChannels) {
                    current.own = clientChannel(name, waiter);
                    besides.put(current.own, name);
                    names = new String[] {name, current.own};
                }
                String[] both = names;
                // Refused (a Redis 7 ACL user allowed the lock's channel only): the lock's channel
                // alone, where a release addresses a client that does not listen on its own.
                current.subscribed = connection().thenCompose(c -> c.subscribe(both).exceptionallyCompose(
                                error -> both.length == 1 ? CompletableFuture.failedFuture(error) : c.subscribe(name)))
                        .thenApply(ignored -> null);
            }
            current.references++;
            holder[0] = current;
            return current;
        });
        return new Signal(channelName, holder[0], waiter);
    }

    /**
     * A new reference to a channel this client is already subscribed to (still in use, or
     * lingering), or {@code null}: a waiter that gets one can register on its first attempt.
     */
    public ReleaseSignal subscribeIfActive(String channelName, String waiter) {
        Channel[] holder = new Channel[1];
        channels.computeIfPresent(channelName, (name, current) -> {
            CompletableFuture<Void> subscribed = current.subscribed;
            if (subscribed.isDone() && !subscribed.isCompletedExceptionally()) {
                current.references++;
                holder[0] = current;
            }
            return current;
        });
        return holder[0] == null ? null : new Signal(channelName, holder[0], waiter);
    }

    /**
     * Wakes the waiter {@code waiter} parked on {@code channelName}, as a message naming it would:
     * for a waiter that another waiter's attempt found must attempt itself.
     */
    public void wake(String channelName, String waiter) {
        Channel channel = channels.get(channelName);
        if (channel != null) {
            channel.wake(waiter, Wake.RETRY);
        }
    }

    /** Channels this client is subscribed to: in use by a waiter, or lingering. */
    public int activeChannels() {
        return channels.size();
    }

    private CompletableFuture<Void> release(String channelName, Channel channel, boolean lingering) {
        CompletableFuture<Void>[] unsubscribed = new CompletableFuture[] {CompletableFuture.completedFuture(null)};
        channels.computeIfPresent(channelName, (name, current) -> {
            if (current != channel) {
                return current;
            }
            if (--current.references > 0) {
                return current;
            }
            if (lingering) {
                current.idleSinceNanos = System.nanoTime();
                // One expiry timer per channel at a time, not one per handoff: a busy lock is
                // released hundreds of times a second, and each timer is work for the JDK's
                // delay scheduler. A timer that finds the channel idle for less than the linger
                // (used again meanwhile) schedules the next one for the rest.
                if (!current.expiryScheduled) {
                    current.expiryScheduled = true;
                    scheduleExpiry(name, current, linger.toNanos());
                }
                return current;
            }
            unsubscribed[0] = unsubscribe(name, current);
            return null;
        });
        return unsubscribed[0];
    }

    private void scheduleExpiry(String channelName, Channel channel, long delayNanos) {
        CompletableFuture.delayedExecutor(delayNanos, TimeUnit.NANOSECONDS).execute(() -> expire(channelName, channel));
    }

    /** Ends a lingering channel once it has been idle for the whole linger; a channel in use waits for its next release. */
    private void expire(String channelName, Channel channel) {
        channels.computeIfPresent(channelName, (name, current) -> {
            if (current != channel) {
                return current;
            }
            if (current.references > 0) {
                current.expiryScheduled = false;
                return current;
            }
            long idleFor = System.nanoTime() - current.idleSinceNanos;
            if (idleFor < linger.toNanos()) {
                scheduleExpiry(name, current, linger.toNanos() - idleFor);
                return current;
            }
            unsubscribe(name, current);
            return null;
        });
    }

    private CompletableFuture<Void> unsubscribe(String channelName, Channel channel) {
        channel.fire();
        String[] names = {channelName};
        if (channel.own != null) {
            besides.remove(channel.own);
            names = new String[] {channelName, channel.own};
        }
        String[] both = names;
        // Only a subscription that was made is undone. One that failed (a full or unreachable
        // server) has nothing to undo, and must not open a connection just to unsubscribe.
        return channel.subscribed.handle((made, error) -> error == null).thenCompose(made -> made
                ? connection().thenCompose(c -> c.unsubscribe(both)).thenApply(ignored -> (Void) null)
                : CompletableFuture.completedFuture(null));
    }

    private CompletableFuture<PubSubLink> connection() {
        CompletableFuture<PubSubLink> existing = connection.get();
        if (existing != null && !existing.isCompletedExceptionally()) {
            return existing;
        }
        CompletableFuture<PubSubLink> opening = new CompletableFuture<>();
        if (!connection.compareAndSet(existing, opening)) {
            return connection.get();
        }
        opener.open(this::deliver).whenComplete((link, error) -> {
            if (error != null) {
                opening.completeExceptionally(RedisErrors.translate(description, "opening the pub/sub connection", error));
            } else {
                opening.complete(link);
            }
        });
        return opening;
    }

    private void deliver(String channelName, String message) {
        Channel channel = channels.get(channelName);
        if (channel == null) {
            String lockChannel = besides.get(channelName);
            channel = lockChannel == null ? null : channels.get(lockChannel);
        }
        if (channel != null) {
            channel.deliver(message);
        }
    }

    @Override
    public void close() {
        CompletableFuture<PubSubLink> current = connection.getAndSet(null);
        if (current != null) {
            current.thenAccept(PubSubLink::close);
        }
        channels.values().forEach(Channel::fire);
        channels.clear();
        besides.clear();
    }

    /** One waiter's view of a shared channel. */
    private final class Signal implements ReleaseSignal {

        private final String channelName;
        private final Channel channel;
        private final String waiter;
        private final AtomicReference<CompletableFuture<Void>> unsubscribed = new AtomicReference<>();

        Signal(String channelName, Channel channel, String waiter) {
            this.channelName = channelName;
            this.channel = channel;
            this.waiter = waiter;
        }

        @Override
        public CompletableFuture<Void> ready() {
            return channel.subscribed;
        }

        @Override
        public CompletableFuture<Wake> next() {
            Parked parked = new Parked(waiter, new CompletableFuture<>());
            channel.parked.add(parked);
            // A waiter that wakes by its timer cancels this future; drop it from the queue then.
            parked.future().whenComplete((ignored, error) -> {
                if (parked.future().isCancelled()) {
                    channel.parked.remove(parked);
                }
            });
            return parked.future();
        }

        @Override
        public CompletableFuture<Void> unsubscribe() {
            return leave(false);
        }

        @Override
        public CompletableFuture<Void> unsubscribeLater() {
            return leave(true);
        }

        private CompletableFuture<Void> leave(boolean lingering) {
            CompletableFuture<Void> mine = new CompletableFuture<>();
            if (!unsubscribed.compareAndSet(null, mine)) {
                return unsubscribed.get();
            }
            release(channelName, channel, lingering).whenComplete((ignored, error) -> mine.complete(null));
            return mine;
        }
    }
}
