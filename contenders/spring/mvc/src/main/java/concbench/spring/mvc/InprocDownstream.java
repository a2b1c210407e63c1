package concbench.spring.mvc;

import concbench.spring.AggregateProperties;
import concbench.spring.ConditionalOnAggregate;
import concbench.spring.UserDetail;
import concbench.spring.UserExtraInfo;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.stereotype.Component;

/** downstream=inproc: Thread.sleep on whatever thread runs the call, as the seed's code. */
@Component
@ConditionalOnAggregate
@ConditionalOnProperty(name = "concbench.downstream", havingValue = "inproc")
public class InprocDownstream implements Downstream {
    private final AggregateProperties p;

    public InprocDownstream(AggregateProperties p) {
        this.p = p;
    }

    @Override
    public long getUserBaseInfo(long id) {
        sleep(p.baseMs());
        return id;
    }

    @Override
    public UserDetail getUserDetailInfo(long userId) {
        sleep(p.detailMs());
        return UserDetail.of(userId);
    }

    @Override
    public UserExtraInfo getUserExtraInfo(long userId) {
        sleep(p.extraMs());
        return UserExtraInfo.of(userId);
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RuntimeException(e);
        }
    }
}
