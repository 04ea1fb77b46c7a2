// RUN: dlc-opt %s -split-input-file -verify-diagnostics
// Every dlc_x86 op diagnostic.

func.func @bad_weights(%acc: vector<16xi32>, %a: vector<64xi8>, %b: vector<8x8xi8>) -> vector<16xi32> {
  // expected-error @+1 {{expects 16 columns x 4 bytes of weights (vector<16x4xi8>), got 'vector<8x8xi8>'}}
  %r = dlc_x86.dot_u8s8 %acc, %a, %b : vector<64xi8>, vector<8x8xi8> -> vector<16xi32>
  return %r : vector<16xi32>
}

// -----

func.func @bad_pairs(%acc: vector<8xi32>, %a: vector<16xi16>, %b: vector<4x4xi16>) -> vector<8xi32> {
  // expected-error @+1 {{expects 8 columns x 2 values of weights (vector<8x2xi16>), got 'vector<4x4xi16>'}}
  %r = dlc_x86.dot_i16 %acc, %a, %b : vector<16xi16>, vector<4x4xi16> -> vector<8xi32>
  return %r : vector<8xi32>
}

// -----

func.func @bad_bf16_pairs(%acc: vector<16xf32>, %a: vector<32xbf16>, %b: vector<8x4xbf16>) -> vector<16xf32> {
  // expected-error @+1 {{expects 16 columns x 2 values of weights (vector<16x2xbf16>), got 'vector<8x4xbf16>'}}
  %r = dlc_x86.dot_bf16 %acc, %a, %b : vector<32xbf16>, vector<8x4xbf16> -> vector<16xf32>
  return %r : vector<16xf32>
}
