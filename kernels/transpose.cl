// Transposes N x D row-major descriptors into D x N, through a local-memory tile so that both the
// reads and the writes are coalesced. Launched on (ceil(D/T)*T, ceil(N/T)*T) with T x T groups.
#ifndef BOVW_TILE
#define BOVW_TILE 16  // tile edge; the +1 column below avoids local-memory bank conflicts
#endif

kernel __attribute__((reqd_work_group_size(BOVW_TILE, BOVW_TILE, 1)))
void transpose(global const float* restrict in, global float* restrict out, const int rows,
               const int cols) {
  local float tile[BOVW_TILE][BOVW_TILE + 1];
  const int tx = get_local_id(0);
  const int ty = get_local_id(1);
  const int col = get_group_id(0) * BOVW_TILE + tx;  // feature
  const int row = get_group_id(1) * BOVW_TILE + ty;  // descriptor
  if (row < rows && col < cols) tile[ty][tx] = in[row * cols + col];
  barrier(CLK_LOCAL_MEM_FENCE);
  const int out_row = get_group_id(0) * BOVW_TILE + ty;  // feature
  const int out_col = get_group_id(1) * BOVW_TILE + tx;  // descriptor
  if (out_row < cols && out_col < rows) out[out_row * rows + out_col] = tile[tx][ty];
}
