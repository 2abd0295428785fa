package dev.leasehold.cli;

import org.junit.jupiter.api.Test;
import picocli.CommandLine.ParseResult;

import static org.assertj.core.api.Assertions.assertThat;

/** What the command line says when the chosen backend cannot do what an administrator's command asks. */
class BackendOptionTest {

    @Test
    void anOperationTheBackendCannotDoIsAUsageErrorNamingTheBackendAndItsReason() {
        ParseResult parsed = Main.commandLine().parseArgs("list", "--backend", "etcd");
        BackendOption option = (BackendOption) parsed.subcommand().commandSpec().mixins().get("backend").userObject();

        CliException error = option.unsupported("list locks", new UnsupportedOperationException("no listing here"));

        assertThat(error.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(error.getMessage()).isEqualTo("--backend etcd cannot list locks: no listing here");
    }
}
