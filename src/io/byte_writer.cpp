// ByteWriter: a buffer in front of the stream; every byte passes the checksum on its way out.
#include "io/byte_writer.hpp"

#include <bovw/error.hpp>

#include <string>

namespace bovw::detail {

ByteWriter::ByteWriter(std::ostream& out) : out_(&out) {}

ByteWriter::ByteWriter(ByteWriter& enclosing) : enclosing_(&enclosing) {}

void ByteWriter::rawPastBuffer(const char* data, std::size_t size) {
  flush();
  if (size >= kBufferSize) {  // a large array: straight to the stream, no copy
    emit(data, size);
    return;
  }
  std::memcpy(buffer_.data(), data, size);
  used_ = size;
}

void ByteWriter::flush() {
  emit(buffer_.data(), used_);
  used_ = 0;
}

void ByteWriter::emit(const char* data, std::size_t size) {
  checksum_.update(data, size);
  if (out_) out_->write(data, static_cast<std::streamsize>(size));
  else enclosing_->raw(data, size);
}

void ByteWriter::blockMismatch(const char* what, std::uint64_t announced, std::uint64_t took) {
  throw Error(std::string("internal error: the ") + what + " block took " + std::to_string(took) + " bytes, not the " +
              std::to_string(announced) + " announced");
}

void ByteWriter::checksum() {
  flush();
  u64(checksum_.digest());
  flush();
}

}  // namespace bovw::detail
