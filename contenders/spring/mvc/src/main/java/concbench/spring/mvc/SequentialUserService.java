package concbench.spring.mvc;

import concbench.spring.ConditionalOnAggregate;
import concbench.spring.User;
import concbench.spring.UserDetail;
import concbench.spring.UserExtraInfo;
import org.springframework.context.annotation.Profile;
import org.springframework.stereotype.Service;

/**
 * Seed 003's first version: base, detail, extra one after another on the Tomcat thread (designs
 * sequential, on Tomcat as deployed; sequential-stock, on Boot's Tomcat defaults;
 * sequential-cpu-threads, with 2 worker threads per CPU).
 */
@Service
@Profile({"sequential", "sequential-stock", "sequential-cpu-threads"})
@ConditionalOnAggregate
public class SequentialUserService implements UserService {
    private final Downstream downstream;

    public SequentialUserService(Downstream downstream) {
        this.downstream = downstream;
    }

    @Override
    public User assembleUser(long id) {
        long userId = downstream.getUserBaseInfo(id);
        UserDetail detail = downstream.getUserDetailInfo(userId);
        UserExtraInfo extra = downstream.getUserExtraInfo(userId);
        return User.assemble(userId, detail, extra);
    }
}
