#!/usr/bin/env python3
"""Writes a whisper.cpp model of a given size whose weights are all zero, to time the engine with it.

No registry ships base.en or small.en, and the benchmark wants their speed: whisper.cpp's work is the
same whatever the weights' values, so a model of base.en's sizes times its encoder exactly. What differs
is the decoder's length: with zero weights it would emit tokens to the end of its window, so the token
embedding of end-of-text alone is non-zero and the final layer norm's bias points at it, which ends the
text after the first token or two (a real sentence decodes ten or so more). Usage:
shaped_model.py tiny.en|base.en|small.en ASSETS_DIR OUT_FILE
"""

import base64
import struct
import sys
import zipfile

from ct2_to_ggml import npy

SIZES = {'tiny.en': (384, 6, 4), 'base.en': (512, 8, 6), 'small.en': (768, 12, 12)}
N_VOCAB, AUDIO_CTX, TEXT_CTX, N_MELS, EOT = 51864, 1500, 448, 80, 50256


def main():
    name, assets, out_path = sys.argv[1:4]
    state, heads, layers = SIZES[name]
    out = open(out_path, 'wb')
    out.write(struct.pack('<i', 0x67676D6C))
    for v in (N_VOCAB, AUDIO_CTX, state, heads, layers, TEXT_CTX, state, heads, layers, N_MELS, 1):
        out.write(struct.pack('<i', v))
    with zipfile.ZipFile(f'{assets}/mel_filters.npz') as z:
        shape, filters = npy(z.read(f'mel_{N_MELS}.npy'))
    out.write(struct.pack('<ii', *shape) + filters)
    tokens = [base64.b64decode(l.split()[0]) for l in open(f'{assets}/gpt2.tiktoken', 'rb') if l.strip()]
    out.write(struct.pack('<i', len(tokens)))
    for t in tokens:
        out.write(struct.pack('<i', len(t)) + t)

    def tensor(tname, dims, half=True, fill=None):
        count = 1
        for d in dims:
            count *= d
        out.write(struct.pack('<iii', len(dims), len(tname), 1 if half else 0))
        for d in reversed(dims):
            out.write(struct.pack('<i', d))
        out.write(tname.encode())
        if fill is not None:
            out.write(fill)
        else:
            out.write(bytes(count * (2 if half else 4)))

    one16 = struct.pack('<e', 1.0)
    one32 = struct.pack('<f', 1.0)
    tensor('encoder.conv1.weight', [state, N_MELS, 3])
    tensor('encoder.conv1.bias', [state, 1], half=False)
    tensor('encoder.conv2.weight', [state, state, 3])
    tensor('encoder.conv2.bias', [state, 1], half=False)
    tensor('encoder.positional_embedding', [AUDIO_CTX, state], half=False)
    for side in ('encoder', 'decoder'):
        for i in range(layers):
            b = f'{side}.blocks.{i}'
            attns = ['attn', 'cross_attn'] if side == 'decoder' else ['attn']
            for a in attns:
                tensor(f'{b}.{a}_ln.weight', [state], half=False)
                tensor(f'{b}.{a}_ln.bias', [state], half=False)
                for p in ('query', 'key', 'value', 'out'):
                    tensor(f'{b}.{a}.{p}.weight', [state, state])
                    if p != 'key':
                        tensor(f'{b}.{a}.{p}.bias', [state], half=False)
            tensor(f'{b}.mlp_ln.weight', [state], half=False)
            tensor(f'{b}.mlp_ln.bias', [state], half=False)
            tensor(f'{b}.mlp.0.weight', [4 * state, state])
            tensor(f'{b}.mlp.0.bias', [4 * state], half=False)
            tensor(f'{b}.mlp.2.weight', [state, 4 * state])
            tensor(f'{b}.mlp.2.bias', [state], half=False)
        if side == 'encoder':
            tensor('encoder.ln_post.weight', [state], half=False)
            tensor('encoder.ln_post.bias', [state], half=False)
    embedding = bytearray(N_VOCAB * state * 2)
    embedding[EOT * state * 2:(EOT + 1) * state * 2] = one16 * state
    tensor('decoder.token_embedding.weight', [N_VOCAB, state], fill=bytes(embedding))
    tensor('decoder.positional_embedding', [TEXT_CTX, state], half=False)
    tensor('decoder.ln.weight', [state], half=False)
    tensor('decoder.ln.bias', [state], half=False, fill=one32 * state)
    out.close()
    print(f'{out_path}: a {name}-sized model with zero weights')


if __name__ == '__main__':
    main()
