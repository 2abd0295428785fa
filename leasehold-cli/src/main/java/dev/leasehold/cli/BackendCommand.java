package dev.leasehold.cli;

import dev.leasehold.engine.EngineLockClient;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.util.function.Function;

/**
 * A command that reaches a lock backend ({@code run}, {@code inspect}, {@code list}, {@code break}):
 * the {@code --redis}/{@code --redis-file} options of {@link RedisOption} and the {@code --backend}/{@code
 * --endpoints} options of {@link BackendOption}, and the one way the administrator's commands run an
 * operation on the backend.
 */
abstract class BackendCommand {

    @Spec
    CommandSpec spec;

    @Mixin
    RedisOption redis;

    @Mixin
    BackendOption backend;

    /**
     * Connects to the chosen backend (ZooKeeper's default session), runs {@code operation} on the
     * client and closes it. The operation's {@link IllegalArgumentException} (a malformed name or
     * pattern) becomes a usage error with its message; its {@link UnsupportedOperationException}
     * becomes {@link BackendOption#unsupported(String, UnsupportedOperationException)} for {@code what}.
     *
     * @param what the operation as the usage error names it, e.g. "list locks"
     * @throws ParameterException if the options do not fit together or the operation's input is malformed
     * @throws CliException if the backend cannot do the operation
     * @throws dev.leasehold.LockUnavailableException if the backend cannot be reached
     */
    final <T> T administer(String what, Function<EngineLockClient, T> operation) {
        try (EngineLockClient client = backend.connect(redis)) {
            try {
                return operation.apply(client);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), e.getMessage());
            } catch (UnsupportedOperationException e) {
                throw backend.unsupported(what, e);
            }
        }
    }
}
