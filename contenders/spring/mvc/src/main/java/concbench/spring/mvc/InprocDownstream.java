package concbench.spring.mvc;

import concbench.spring.AggregateProperties;
import concbench.spring.ConditionalOnAggregate;
import concbench.spring.UserDetail;
import concbench.spring.UserExtraInfo;
import concbench.spring.Waits;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.stereotype.Component;

/**
 * downstream=inproc: Thread.sleep on whatever thread runs the call, as the seed's code; each sleep
 * is timed and counted under its kind once it returns ({@link Waits}: the proof of the waits).
 */
@Component
@ConditionalOnAggregate
@ConditionalOnProperty(name = "concbench.downstream", havingValue = "inproc")
public class InprocDownstream implements Downstream {
    private final AggregateProperties p;
    private final Waits waits;

    public InprocDownstream(AggregateProperties p, Waits waits) {
        this.p = p;
        this.waits = waits;
    }

    @Override
    public long getUserBaseInfo(long id) {
        sleep(Waits.Kind.BASE, p.baseMs());
        return id;
    }

    @Override
    public UserDetail getUserDetailInfo(long userId) {
        sleep(Waits.Kind.DETAIL, p.detailMs());
        return UserDetail.of(userId);
    }

    @Override
    public UserExtraInfo getUserExtraInfo(long userId) {
        sleep(Waits.Kind.EXTRA, p.extraMs());
        return UserExtraInfo.of(userId);
    }

    private void sleep(Waits.Kind kind, long ms) {
        try {
            long t0 = System.nanoTime();
            Thread.sleep(ms);
            waits.add(kind, System.nanoTime() - t0);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RuntimeException(e);
        }
    }
}
