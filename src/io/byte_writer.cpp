// ByteWriter: a buffer in front of the stream; every byte passes the checksum on its way out.
#include "io/byte_writer.hpp"

namespace bovw::detail {

namespace {
constexpr std::size_t kBufferSize = std::size_t{1} << 20;
}  // namespace

ByteWriter::ByteWriter(std::ostream& out) : out_(&out) { buffer_.reserve(kBufferSize); }

ByteWriter::ByteWriter(ByteWriter& enclosing) : enclosing_(&enclosing) { buffer_.reserve(kBufferSize); }

void ByteWriter::raw(const char* data, std::size_t size) {
  if (buffer_.size() + size > kBufferSize) flush();
  if (size >= kBufferSize) {  // a large array: straight to the stream, no copy
    emit(data, size);
    return;
  }
  buffer_.insert(buffer_.end(), data, data + size);
}

void ByteWriter::flush() {
  emit(buffer_.data(), buffer_.size());
  buffer_.clear();
}

void ByteWriter::emit(const char* data, std::size_t size) {
  checksum_.update(data, size);
  if (out_) out_->write(data, static_cast<std::streamsize>(size));
  else enclosing_->raw(data, size);
}

void ByteWriter::checksum() {
  flush();
  u64(checksum_.digest());
  flush();
}

}  // namespace bovw::detail
