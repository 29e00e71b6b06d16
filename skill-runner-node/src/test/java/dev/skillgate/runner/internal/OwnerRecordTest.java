package dev.skillgate.runner.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.model.RunId;
import dev.skillgate.runner.SupervisorIdentity;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;

class OwnerRecordTest {

    static OwnerRecord sample() {
        return new OwnerRecord(
                RunId.of("run-1:a.b"),
                "0123456789abcdef0123456789abcdef",
                "(dev=803,ino=4711)",
                new OwnerRecord.Owner(4242, "jdk:1764547200000"),
                Optional.empty());
    }

    @Test
    void roundTripsWithAndWithoutSupervisor() {
        OwnerRecord r = sample();
        assertThat(OwnerRecord.parse(r.format())).contains(r);
        OwnerRecord s = r.withSupervisor(new SupervisorIdentity(99, "123456", "attempt-7"));
        assertThat(OwnerRecord.parse(s.format())).contains(s);
        assertThat(new String(s.format(), StandardCharsets.US_ASCII))
                .isEqualTo(
                        "skillgate-staging-owner 1\nrun run-1:a.b\nattempt 0123456789abcdef0123456789abcdef\n"
                                + "directory (dev=803,ino=4711)\nstager 4242 jdk:1764547200000\nsupervisor 99 123456 attempt-7\n");
    }

    @Test
    void rejectsEveryOtherShape() {
        String ok = new String(sample().format(), StandardCharsets.US_ASCII);
        String[] bad = {
            "",
            ok.replace("skillgate-staging-owner 1", "skillgate-staging-owner 2"),
            ok.substring(0, ok.length() - 1),
            ok + "extra 1\n",
            ok + "supervisor 1 2 3\nsupervisor 1 2 3\n",
            ok.replace("stager 4242", "stager 0"),
            ok.replace("stager 4242", "stager -1"),
            ok.replace("stager 4242", "stager 04242"),
            ok.replace("run run-1:a.b", "run run/1"),
            ok.replace("attempt 0123", "attempt 0123x"),
            ok.replace("attempt 0123456789abcdef0123456789abcdef", "attempt 0123456789ABCDEF0123456789ABCDEF"),
            ok.replace("\n", "\r\n"),
            ok.replace("jdk:1764547200000", "jdk:17645 47200000"),
            ok.replace("run ", "run  "),
            ok.replace("directory (dev=803,ino=4711)", "directory "),
            ok + "supervisor 5 t\n",
            ok.replace("stager", "owner"),
        };
        for (String b : bad) {
            assertThat(OwnerRecord.parse(b.getBytes(StandardCharsets.UTF_8)))
                    .as(b)
                    .isEmpty();
        }
        assertThat(OwnerRecord.parse(new byte[OwnerRecord.MAX_BYTES + 1])).isEmpty();
        assertThat(OwnerRecord.parse((ok.replace("run-1", "r\u00e9n")).getBytes(StandardCharsets.UTF_8)))
                .isEmpty();
    }

    @Test
    void seededMutationsNeverThrowAndNeverAcceptAChangedRecordAsTheOriginal() {
        byte[] ok =
                sample().withSupervisor(new SupervisorIdentity(7, "99", "x")).format();
        Random random = new Random(42);
        for (int n = 0; n < 20_000; n++) {
            byte[] m = ok.clone();
            int edits = 1 + random.nextInt(3);
            for (int e = 0; e < edits; e++) {
                m[random.nextInt(m.length)] = (byte) random.nextInt(256);
            }
            Optional<OwnerRecord> parsed = OwnerRecord.parse(m);
            parsed.ifPresent(p -> assertThat(p.format()).isEqualTo(m));
        }
    }
}
