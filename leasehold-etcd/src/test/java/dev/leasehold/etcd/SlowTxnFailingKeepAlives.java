package dev.leasehold.etcd;

import io.etcd.jetcd.Client;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * While armed: every LeaseKeepAlive call fails at once with UNAVAILABLE (as with no leader), and the
 * next Txn is held on the client's side of the network (not sent) until {@link #releaseHeld()}: a slow
 * path for one request while the keep-alives fail.
 */
final class SlowTxnFailingKeepAlives implements ClientInterceptor {

    private volatile boolean failKeepAlives;
    private volatile boolean holdNextTxn;
    private final CompletableFuture<Void> released = new CompletableFuture<>();
    /** How many keep-alives failed, and how many {@code Txn}s were held. */
    final AtomicInteger failedKeepAlives = new AtomicInteger();
    final AtomicInteger heldTxns = new AtomicInteger();

    void arm() {
        holdNextTxn = true;
        failKeepAlives = true;
    }

    void stopFailingKeepAlives() {
        failKeepAlives = false;
    }

    void releaseHeld() {
        released.complete(null);
    }

    Client client(String endpoints) {
        return Client.builder().endpoints(endpoints).interceptor(this).build();
    }

    @Override
    public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
        String name = method.getBareMethodName();
        if (name.equals("LeaseKeepAlive") && failKeepAlives) {
            failedKeepAlives.incrementAndGet();
            return new ClientCall<>() {
                @Override
                public void start(Listener<R> listener, Metadata headers) {
                    CompletableFuture.runAsync(() -> listener.onClose(
                            Status.UNAVAILABLE.withDescription("etcdserver: no leader (test)"), new Metadata()));
                }

                @Override
                public void request(int numMessages) {
                }

                @Override
                public void cancel(String message, Throwable cause) {
                }

                @Override
                public void halfClose() {
                }

                @Override
                public void sendMessage(Q message) {
                }
            };
        }
        ClientCall<Q, R> call = next.newCall(method, options);
        if (!(name.equals("Txn") && holdNextTxn)) {
            return call;
        }
        holdNextTxn = false;
        heldTxns.incrementAndGet();
        return new ForwardingClientCall.SimpleForwardingClientCall<>(call) {
            private final List<Runnable> deferred = new ArrayList<>();
            private boolean started;

            private synchronized void later(Runnable action) {
                if (released.isDone() && started) {
                    action.run();
                } else {
                    deferred.add(action);
                }
            }

            @Override
            public void start(Listener<R> listener, Metadata headers) {
                synchronized (this) {
                    deferred.add(() -> delegate().start(listener, headers));
                }
                released.thenRun(() -> {
                    synchronized (this) {
                        deferred.forEach(Runnable::run);
                        deferred.clear();
                        started = true;
                    }
                });
            }

            @Override
            public void cancel(String message, Throwable cause) {
                later(() -> delegate().cancel(message, cause));
            }

            @Override
            public void request(int numMessages) {
                later(() -> delegate().request(numMessages));
            }

            @Override
            public void sendMessage(Q message) {
                later(() -> delegate().sendMessage(message));
            }

            @Override
            public void halfClose() {
                later(() -> delegate().halfClose());
            }
        };
    }
}
