package concbench.spring.mvc;

import concbench.spring.UserDetail;
import concbench.spring.UserExtraInfo;

/**
 * Seed 003's three data sources (getUserBaseInfo / getUserDetailInfo / getUserExtraInfo),
 * blocking the calling thread: an in-process Thread.sleep or a RestClient call.
 */
public interface Downstream {
    long getUserBaseInfo(long id);

    UserDetail getUserDetailInfo(long userId);

    UserExtraInfo getUserExtraInfo(long userId);
}
