// The process executor's transport (exec/shm_mailbox.hpp) between this process and a forked one:
// frames through shared memory both ways, a frame too long for memory said to be on the socket, and
// a wait that gives up when the peer is gone.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
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
  exec::ShmMailbox::Cursor cursor;
  for (;;) {
    const auto waited = mailbox.wait_request(cursor, in, kSlice, [] { return true; });
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
  exec::ShmMailbox::Cursor cursor;
  for (int round = 0; round < 1000; ++round) {
    const std::vector<char> request = {'a', static_cast<char>('0' + round % 10), 'z'};
    ASSERT_TRUE(mailbox->post_request(request));
    ASSERT_EQ(mailbox->wait_reply(cursor, reply, kSlice, [] { return true; }), exec::ShmMailbox::Waited::frame);
    ASSERT_EQ(reply, std::vector<char>(request.rbegin(), request.rend())) << "round " << round;
  }
  EXPECT_FALSE(mailbox->post_request(std::vector<char>(exec::ShmMailbox::kCapacity + 1, 'x')));
  ASSERT_EQ(mailbox->wait_reply(cursor, reply, kSlice, [] { return true; }), exec::ShmMailbox::Waited::frame);
  EXPECT_EQ(reply, std::vector<char>{'s'});
  EXPECT_TRUE(mailbox->post_request({}));
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

TEST(ShmMailbox, AWaitGivesUpWhenThePeerIsGone) {
  const Mailbox mailbox(exec::ShmMailbox::create(), &exec::ShmMailbox::destroy);
  std::vector<char> reply;
  exec::ShmMailbox::Cursor cursor;
  int asked = 0;
  const auto waited = mailbox->wait_reply(cursor, reply, std::chrono::milliseconds(1), [&] { return ++asked < 3; });
  EXPECT_EQ(waited, exec::ShmMailbox::Waited::gave_up);
  EXPECT_EQ(asked, 3);
}

TEST(ShmMailbox, AFrameOutOfSequenceOrBeyondTheSlotIsMalformedNotCopied) {
  const Mailbox mailbox(exec::ShmMailbox::create(), &exec::ShmMailbox::destroy);
  std::vector<char> reply;
  // two frames posted where one was asked: the second is not the next in sequence
  ASSERT_TRUE(mailbox->post_reply({'a'}));
  ASSERT_TRUE(mailbox->post_reply({'b'}));
  exec::ShmMailbox::Cursor cursor;
  EXPECT_EQ(mailbox->wait_reply(cursor, reply, kSlice, [] { return true; }), exec::ShmMailbox::Waited::malformed);
  EXPECT_EQ(cursor.fault.sequence, 2U);
  EXPECT_EQ(cursor.fault.expected, 1U);
  EXPECT_TRUE(reply.empty());
  // a size the slot cannot hold, written over the mapping as a stray write would
  const Mailbox scribbled(exec::ShmMailbox::create(), &exec::ShmMailbox::destroy);
  ASSERT_TRUE(scribbled->post_request({'x'}));
  ASSERT_TRUE(scribbled->post_reply({'y'}));
  auto* bytes = reinterpret_cast<unsigned char*>(scribbled.get());
  std::fill(bytes, bytes + sizeof(exec::ShmMailbox), 0xFF);
  exec::ShmMailbox::Cursor stray{.read = 0xFFFFFFFEU};  // the sequence is the next one: only the size is wrong
  EXPECT_EQ(scribbled->wait_reply(stray, reply, kSlice, [] { return true; }), exec::ShmMailbox::Waited::malformed);
  EXPECT_EQ(stray.fault.size, ~std::uint64_t{0});
  EXPECT_TRUE(reply.empty());
}

}  // namespace
}  // namespace cosima
