// ClientPause (server/state/client_pause.h): the pause in force from its
// purposes, as Redis 7.0's updateClientPauseTypeAndEndTime computes it, and
// the changes it reports.
#include "client_pause.h"

#include <gtest/gtest.h>

#include <vector>

namespace teksdb::server {
namespace {

class ClientPauseTest : public testing::Test {
 protected:
  ClientPauseTest() {
    pause_.set_changed([this](ClientPause::Kind kind) { changes_.push_back(kind); });
  }
  ClientPause pause_;
  std::vector<ClientPause::Kind> changes_;
};

TEST_F(ClientPauseTest, NoneUntilPaused) {
  EXPECT_EQ(pause_.kind(), ClientPause::kNone);
  EXPECT_FALSE(pause_.writes_paused());
  pause_.ExpireDue(1000);
  EXPECT_TRUE(changes_.empty());
}

TEST_F(ClientPauseTest, LastsThroughItsDeadlineAndEndsAfter) {
  pause_.Pause(ClientPause::kCommand, ClientPause::kWrite, 2000, 1000);
  EXPECT_EQ(pause_.kind(), ClientPause::kWrite);
  pause_.ExpireDue(2000);  // (through its deadline's millisecond, as Redis)
  EXPECT_EQ(pause_.kind(), ClientPause::kWrite);
  pause_.ExpireDue(2001);
  EXPECT_EQ(pause_.kind(), ClientPause::kNone);
  EXPECT_EQ(changes_, (std::vector<ClientPause::Kind>{ClientPause::kWrite, ClientPause::kNone}));
}

TEST_F(ClientPauseTest, AZeroTimeoutPausesNothing) {
  pause_.Pause(ClientPause::kCommand, ClientPause::kAll, 0, 1000);
  EXPECT_EQ(pause_.kind(), ClientPause::kNone);
  EXPECT_TRUE(changes_.empty());
}

TEST_F(ClientPauseTest, ASecondPauseKeepsTheStricterKindAndTheLaterDeadline) {
  pause_.Pause(ClientPause::kCommand, ClientPause::kAll, 5000, 1000);
  pause_.Pause(ClientPause::kCommand, ClientPause::kWrite, 3000, 1000);
  EXPECT_EQ(pause_.kind(), ClientPause::kAll);
  pause_.Pause(ClientPause::kCommand, ClientPause::kWrite, 9000, 1000);
  pause_.ExpireDue(6000);
  EXPECT_EQ(pause_.kind(), ClientPause::kAll);
  pause_.ExpireDue(9001);
  EXPECT_EQ(pause_.kind(), ClientPause::kNone);
}

TEST_F(ClientPauseTest, PurposesHoldApartAndTheStrictestIsInForce) {
  pause_.Pause(ClientPause::kFailover, ClientPause::kWrite, ClientPause::kNoDeadline, 1000);
  pause_.Pause(ClientPause::kCommand, ClientPause::kAll, 2000, 1000);
  EXPECT_EQ(pause_.kind(), ClientPause::kAll);
  // CLIENT UNPAUSE lifts the command's only: the failover's still holds.
  pause_.Unpause(ClientPause::kCommand, 1500);
  EXPECT_EQ(pause_.kind(), ClientPause::kWrite);
  pause_.ExpireDue(int64_t{1} << 60);
  EXPECT_EQ(pause_.kind(), ClientPause::kWrite);
  pause_.Unpause(ClientPause::kFailover, 1500);
  EXPECT_EQ(pause_.kind(), ClientPause::kNone);
  EXPECT_EQ(changes_, (std::vector<ClientPause::Kind>{ClientPause::kWrite, ClientPause::kAll,
                                                      ClientPause::kWrite, ClientPause::kNone}));
}

TEST_F(ClientPauseTest, UnpauseOfNothingChangesNothing) {
  pause_.Unpause(ClientPause::kCommand, 1000);
  EXPECT_TRUE(changes_.empty());
}

}  // namespace
}  // namespace teksdb::server
