// Command transformer trains a small decoder-only transformer (causal
// multi-head self-attention, layer norm, GELU MLP, residuals) for
// character-level next-token prediction on a short text embedded below, with
// jit.Compile around the whole train step (forward, lazy.Grad, optim.Adam),
// built from nn layers (Embedding, LayerNorm, MultiHeadAttention, Linear). It
// prints the loss every few steps, a greedy continuation of a prompt, and the
// jit statistics.
//
//	go run ./examples/transformer [-steps 300] [-batch 16] [-seq 32]
package main
