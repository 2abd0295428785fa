package dev.leasehold.engine;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The order in which {@link Coalescer} sends: alone while nothing of the lane is in flight, then
 * everything that waited in one call, never two requests with one exclusive key together, lanes apart.
 */
class CoalescerTest {

    /** A request: its lane, its exclusive key (a lock name) and a label. */
    private record Request(String lane, String name, String label) {
    }

    /** Records every call and leaves it in flight until the test completes it. */
    private static final class Wire implements Coalescer.Sender<Request, String> {
        final List<List<String>> calls = Collections.synchronizedList(new ArrayList<>());
        final List<CompletableFuture<List<String>>> inFlight = new ArrayList<>();

        @Override
        public synchronized CompletableFuture<String> one(Request request) {
            return many(List.of(request)).get(0);
        }

        @Override
        public synchronized List<CompletableFuture<String>> many(List<Request> requests) {
            calls.add(requests.stream().map(Request::label).toList());
            CompletableFuture<List<String>> call = new CompletableFuture<>();
            inFlight.add(call);
            return requests.stream().map(request -> call.thenApply(ignored -> "ok " + request.label())).toList();
        }

        /** Answers call {@code index}. */
        void answer(int index) {
            CompletableFuture<List<String>> call;
            synchronized (this) {
                call = inFlight.get(index);
            }
            call.complete(List.of());
        }
    }

    private static Coalescer<Request, String> coalescer(Wire wire, long stallMillis) {
        return new Coalescer<>(wire, Request::lane, Request::name, 3, stallMillis);
    }

    @Test
    void whatArrivesWhileACallIsInFlightLeavesTogetherWithOneRequestPerNameAndAtMostTheBatchSize() throws Exception {
        Wire wire = new Wire();
        Coalescer<Request, String> coalescer = coalescer(wire, 60_000);
        CompletableFuture<String> first = coalescer.submit(new Request("session", "a", "a1"));
        assertThat(wire.calls).as("nothing in flight: sent at once, alone").containsExactly(List.of("a1"));

        List<CompletableFuture<String>> waiting = new ArrayList<>();
        for (Request request : List.of(new Request("session", "b", "b1"), new Request("session", "b", "b2"),
                new Request("session", "c", "c1"), new Request("session", "d", "d1"), new Request("session", "e", "e1"))) {
            waiting.add(coalescer.submit(request));
        }
        assertThat(wire.calls).as("the others wait for the call in flight").hasSize(1);

        wire.answer(0);
        assertThat(first.get(1, TimeUnit.SECONDS)).isEqualTo("ok a1");
        assertThat(wire.calls.get(1)).as("one call, one request per name, at most three").containsExactly("b1", "c1", "d1");
        wire.answer(1);
        assertThat(wire.calls.get(2)).as("the second of name b, and the one that did not fit").containsExactly("b2", "e1");
        wire.answer(2);
        assertThat(waiting).extracting(answer -> answer.get(1, TimeUnit.SECONDS))
                .containsExactly("ok b1", "ok b2", "ok c1", "ok d1", "ok e1");

        coalescer.submit(new Request("session", "f", "f1"));
        assertThat(wire.calls).as("idle again: sent at once").hasSize(4).last().isEqualTo(List.of("f1"));
    }

    @Test
    void lanesDoNotWaitForEachOther() {
        Wire wire = new Wire();
        Coalescer<Request, String> coalescer = coalescer(wire, 60_000);
        coalescer.submit(new Request("session-1", "a", "a1"));
        coalescer.submit(new Request("session-2", "b", "b1"));
        assertThat(wire.calls).containsExactly(List.of("a1"), List.of("b1"));
    }

    @Test
    void aFailedCallFailsEveryRequestInItAndTheLaneGoesOn() throws Exception {
        Wire wire = new Wire();
        Coalescer<Request, String> coalescer = coalescer(wire, 60_000);
        coalescer.submit(new Request("session", "a", "a1"));
        CompletableFuture<String> b = coalescer.submit(new Request("session", "b", "b1"));
        CompletableFuture<String> c = coalescer.submit(new Request("session", "c", "c1"));
        wire.answer(0);
        wire.inFlight.get(1).completeExceptionally(new IllegalStateException("requested lease not found"));
        assertThat(b).isCompletedExceptionally();
        assertThat(c).isCompletedExceptionally();
        coalescer.submit(new Request("session", "d", "d1"));
        assertThat(wire.calls).last().isEqualTo(List.of("d1"));
    }

    @Test
    void aCallThatHangsHoldsUpTheLaneOnlyUntilTheStallBound() throws Exception {
        Wire wire = new Wire();
        Coalescer<Request, String> coalescer = coalescer(wire, 100);
        CompletableFuture<String> hung = coalescer.submit(new Request("session", "a", "a1"));
        CompletableFuture<String> next = coalescer.submit(new Request("session", "b", "b1"));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (wire.calls.size() < 2 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(wire.calls).as("sent without waiting for the hung call").containsExactly(List.of("a1"), List.of("b1"));
        wire.answer(1);
        assertThat(next.get(1, TimeUnit.SECONDS)).isEqualTo("ok b1");
        assertThat(hung).isNotDone();
    }

    /**
     * Found by a reviewer helper: a sender that answers at once (ZooKeeper's, not connected) made
     * each batch move its lane on from within the one before, a stack frame deeper each time;
     * thousands of requests of one name queued behind a hung call overflowed the stack, the rest
     * were never answered and the lane stayed busy for good.
     */
    @Test
    void thousandsOfRequestsAnsweredAtOnceDrainOnASmallStack() throws Exception {
        CompletableFuture<String> first = new CompletableFuture<>();
        Coalescer<Request, String> coalescer = new Coalescer<>(Coalescer.Sender.of(
                request -> request.label().equals("first") ? first : CompletableFuture.completedFuture("not sent"),
                requests -> requests.stream().map(request -> CompletableFuture.completedFuture("not sent")).toList()),
                Request::lane, Request::name, 64, 60_000);
        List<CompletableFuture<String>> answers = new ArrayList<>();
        answers.add(coalescer.submit(new Request("session", "one-name", "first")));
        for (int i = 0; i < 3_000; i++) {
            answers.add(coalescer.submit(new Request("session", "one-name", "r" + i)));
        }
        Thread answering = new Thread(null, () -> first.complete("made"), "answering", 512 * 1024);
        answering.start();
        answering.join();

        assertThat(answers).as("every request answered").allMatch(CompletableFuture::isDone);
        assertThat(coalescer.submit(new Request("session", "one-name", "after")).get(2, TimeUnit.SECONDS))
                .as("the lane still sends").isEqualTo("not sent");
    }
}
