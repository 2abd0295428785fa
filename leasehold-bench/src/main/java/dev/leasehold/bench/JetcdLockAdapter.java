package dev.leasehold.bench;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.Lease;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import io.etcd.jetcd.support.CloseableClient;
import io.grpc.stub.StreamObserver;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * jetcd's own {@code Lock} client (etcd's v3lock service: one {@code Lock} RPC to acquire, one
 * {@code Unlock} to release) on its own jetcd client. etcd names the lock key after the lease, so two
 * threads sharing a lease would both "hold" the lock: each thread gets a lease of its own, granted on
 * its first acquire and kept alive until {@link #close()}, as a worker's session would be. It issues
 * no fencing token here (the key's create revision is not in the response).
 */
final class JetcdLockAdapter implements LockAdapter {

    private static final long LEASE_TTL_SECONDS = 10;

    private final Client client;
    private final List<CloseableClient> keepAlives = new ArrayList<>();
    private final ThreadLocal<Long> leases = ThreadLocal.withInitial(this::grant);

    private JetcdLockAdapter(Client client) {
        this.client = client;
    }

    /** A new jetcd client on these comma-separated endpoints. */
    static JetcdLockAdapter connect(String endpoints) {
        return new JetcdLockAdapter(Client.builder().endpoints(endpoints.split(",")).build());
    }

    @Override
    public String label() {
        return "jetcd Lock";
    }

    private long grant() {
        Lease leaseClient = client.getLeaseClient();
        long id = get(leaseClient.grant(LEASE_TTL_SECONDS)).getID();
        CloseableClient keepAlive = leaseClient.keepAlive(id, new StreamObserver<>() {
            @Override
            public void onNext(LeaseKeepAliveResponse response) {
            }

            @Override
            public void onError(Throwable t) {
            }

            @Override
            public void onCompleted() {
            }
        });
        synchronized (keepAlives) {
            keepAlives.add(keepAlive);
        }
        return id;
    }

    @Override
    public Handle lock(String name) {
        ByteSequence key = ByteSequence.from(name, StandardCharsets.UTF_8);
        return () -> {
            ByteSequence owned = get(client.getLockClient().lock(key, leases.get())).getKey();
            return Held.of(NO_TOKEN, () -> get(client.getLockClient().unlock(owned)));
        };
    }

    private static <T> T get(CompletableFuture<T> future) {
        try {
            return future.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted during a jetcd call", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("jetcd call failed", e.getCause());
        }
    }

    @Override
    public void close() {
        synchronized (keepAlives) {
            keepAlives.forEach(CloseableClient::close);
        }
        client.close();
    }
}
