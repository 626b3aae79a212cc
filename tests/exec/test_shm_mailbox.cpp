// The process executor's transport (exec/shm_mailbox.hpp) between this process and a forked one:
// frames through shared memory both ways, a frame too long for memory said to be on the socket, and
// a wait that gives up when the peer is gone.
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <vector>

#include <gtest/gtest.h>

#include "exec/shm_mailbox.hpp"

namespace cosima {
namespace {

using Mailbox = std::unique_ptr<exec::ShmMailbox, void (*)(exec::ShmMailbox*)>;
constexpr std::chrono::milliseconds kSlice{20};

/// The forked side: answers each request with the request reversed, a request on the socket with
/// {'s'}, and ends at an empty one.
[[noreturn]] void echo_reversed(exec::ShmMailbox& mailbox) {
  std::vector<char> in;
  for (;;) {
    const auto waited = mailbox.wait_request(in, kSlice, [] { return true; });
    if (waited == exec::ShmMailbox::Waited::on_socket) {
      (void)mailbox.post_reply({'s'});
      continue;
    }
    if (in.empty()) std::_Exit(0);
    (void)mailbox.post_reply(std::vector<char>(in.rbegin(), in.rend()));
  }
}

TEST(ShmMailbox, FramesCrossBothWaysAndATooLongOneIsSaidToBeOnTheSocket) {
  const Mailbox mailbox(exec::ShmMailbox::create(), &exec::ShmMailbox::destroy);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) echo_reversed(*mailbox);
  std::vector<char> reply;
  for (int round = 0; round < 1000; ++round) {
    const std::vector<char> request = {'a', static_cast<char>('0' + round % 10), 'z'};
    ASSERT_TRUE(mailbox->post_request(request));
    ASSERT_EQ(mailbox->wait_reply(reply, kSlice, [] { return true; }), exec::ShmMailbox::Waited::frame);
    ASSERT_EQ(reply, std::vector<char>(request.rbegin(), request.rend())) << "round " << round;
  }
  EXPECT_FALSE(mailbox->post_request(std::vector<char>(exec::ShmMailbox::kCapacity + 1, 'x')));
  ASSERT_EQ(mailbox->wait_reply(reply, kSlice, [] { return true; }), exec::ShmMailbox::Waited::frame);
  EXPECT_EQ(reply, std::vector<char>{'s'});
  EXPECT_TRUE(mailbox->post_request({}));
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

TEST(ShmMailbox, AWaitGivesUpWhenThePeerIsGone) {
  const Mailbox mailbox(exec::ShmMailbox::create(), &exec::ShmMailbox::destroy);
  std::vector<char> reply;
  int asked = 0;
  const auto waited = mailbox->wait_reply(reply, std::chrono::milliseconds(1), [&] { return ++asked < 3; });
  EXPECT_EQ(waited, exec::ShmMailbox::Waited::gave_up);
  EXPECT_EQ(asked, 3);
}

}  // namespace
}  // namespace cosima
