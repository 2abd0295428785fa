package dev.leasehold.etcd;

import io.etcd.jetcd.Client;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.MethodDescriptor;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** The calls a jetcd client starts, recorded by their short name ("Txn", "LeaseGrant", ...) by a gRPC interceptor. */
final class CountedCalls implements ClientInterceptor {

    private final List<String> calls = Collections.synchronizedList(new ArrayList<>());

    @Override
    public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
        calls.add(method.getBareMethodName());
        return next.newCall(method, options);
    }

    /** A new jetcd client on {@code endpoints} whose calls are recorded here. */
    Client client(String endpoints) {
        return Client.builder().endpoints(endpoints).interceptor(this).build();
    }

    /** Forgets the calls recorded so far. */
    void clear() {
        calls.clear();
    }

    /** The calls recorded since the last {@link #clear()}, in order. */
    List<String> calls() {
        return List.copyOf(calls);
    }

    /** The calls {@code operation} started. */
    List<String> during(Runnable operation) {
        clear();
        operation.run();
        return calls();
    }
}
