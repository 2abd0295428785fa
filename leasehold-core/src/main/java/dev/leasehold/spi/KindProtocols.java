package dev.leasehold.spi;

import dev.leasehold.LockKind;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * A backend's protocols, one per {@link LockKind}, each made on the kind's first use and kept: the
 * engine keeps its local queues and Java lock views per protocol, so every lock of a kind must get
 * the same protocol from {@link Backend#protocol(LockKind, dev.leasehold.LockOptions)}. Safe to call from any
 * thread; the factory runs at most once per kind.
 *
 * @param <P> the backend's protocol type
 */
public final class KindProtocols<P extends LockProtocol> {

    private final Map<LockKind, P> protocols = new ConcurrentHashMap<>();
    private final Function<? super LockKind, ? extends P> factory;

    /**
     * @param factory makes the protocol of a kind; it must not return null
     * @throws NullPointerException if {@code factory} is null
     */
    public KindProtocols(Function<? super LockKind, ? extends P> factory) {
        this.factory = Objects.requireNonNull(factory, "factory");
    }

    /** The protocol of {@code kind}, made by the factory on the first call for the kind. */
    public P of(LockKind kind) {
        return protocols.computeIfAbsent(kind, factory);
    }
}
