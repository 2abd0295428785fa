package dev.leasehold.etcd;

import io.etcd.jetcd.Client;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall;
import io.grpc.ForwardingClientCallListener;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * A gRPC interceptor that, when armed for a method, lets the next such call reach the server and be
 * applied there, then drops its answer and reports UNAVAILABLE to the client: an answer lost after
 * etcd applied the write (as a connection reset after the commit would).
 */
final class DroppedAnswers implements ClientInterceptor {

    private volatile String armed;
    private final AtomicInteger dropped = new AtomicInteger();

    /** The next call of {@code method} (its bare name, e.g. "Txn") loses its answer. */
    void dropNext(String method) {
        armed = method;
    }

    int dropped() {
        return dropped.get();
    }

    Client client(String endpoints) {
        return Client.builder().endpoints(endpoints).interceptor(this).build();
    }

    @Override
    public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
        String name = method.getBareMethodName();
        boolean drop = name.equals(armed);
        if (drop) {
            armed = null;
        }
        ClientCall<Q, R> call = next.newCall(method, options);
        if (!drop) {
            return call;
        }
        return new ForwardingClientCall.SimpleForwardingClientCall<>(call) {
            @Override
            public void start(Listener<R> listener, Metadata headers) {
                super.start(new ForwardingClientCallListener.SimpleForwardingClientCallListener<>(listener) {
                    @Override
                    public void onMessage(R message) {
                        dropped.incrementAndGet(); // applied on the server; the client never sees it
                    }

                    @Override
                    public void onClose(Status status, Metadata trailers) {
                        super.onClose(Status.UNAVAILABLE.withDescription("answer dropped by the test"), new Metadata());
                    }
                }, headers);
            }
        };
    }
}
