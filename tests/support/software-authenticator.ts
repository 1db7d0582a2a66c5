/**
 * A WebAuthn authenticator in software (an ES256 key pair, "none" attestation), so the API tests drive
 * better-auth's real passkey verification without a browser. The end-to-end suite uses Chromium's
 * virtual authenticator instead.
 */
import { createHash, generateKeyPairSync, type KeyObject, sign } from "node:crypto";

type Cbor = number | string | Buffer | Cbor[] | Map<Cbor, Cbor> | { [key: string]: Cbor };

function head(major: number, length: number): Buffer {
  if (length < 24) return Buffer.from([(major << 5) | length]);
  if (length < 256) return Buffer.from([(major << 5) | 24, length]);
  return Buffer.from([(major << 5) | 25, length >> 8, length & 255]);
}

/** The CBOR subset WebAuthn needs: small integers, byte and text strings, maps. */
function cbor(value: Cbor): Buffer {
  if (typeof value === "number") return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === "string") return Buffer.concat([head(3, Buffer.byteLength(value)), Buffer.from(value)]);
  if (Buffer.isBuffer(value)) return Buffer.concat([head(2, value.length), value]);
  if (Array.isArray(value)) return Buffer.concat([head(4, value.length), ...value.map(cbor)]);
  const entries = value instanceof Map ? [...value] : Object.entries(value);
  return Buffer.concat([head(5, entries.length), ...entries.flatMap(([k, v]) => [cbor(k), cbor(v)])]);
}

const b64url = (data: Buffer | string) => Buffer.from(data).toString("base64url");
const sha256 = (data: Buffer | string) => createHash("sha256").update(data).digest();

interface Credential {
  id: Buffer;
  key: KeyObject;
  userHandle: string;
}

export class SoftwareAuthenticator {
  private readonly credentials: Credential[] = [];

  constructor(
    private readonly rpId = "localhost",
    private readonly origin = "http://localhost",
  ) {}

  private clientData(type: string, challenge: string) {
    return Buffer.from(JSON.stringify({ type, challenge, origin: this.origin, crossOrigin: false }));
  }

  /** navigator.credentials.create(): a registration response for better-auth's options. */
  register(options: { challenge: string; user: { id: string } }) {
    const { publicKey, privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const jwk = publicKey.export({ format: "jwk" });
    const id = Buffer.from(crypto.getRandomValues(new Uint8Array(16)));
    this.credentials.push({ id, key: privateKey, userHandle: options.user.id });
    const cose = new Map<Cbor, Cbor>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, Buffer.from(jwk.x as string, "base64url")],
      [-3, Buffer.from(jwk.y as string, "base64url")],
    ]);
    const length = Buffer.from([id.length >> 8, id.length & 255]);
    const authData = Buffer.concat([sha256(this.rpId), Buffer.from([0x45, 0, 0, 0, 0]), Buffer.alloc(16), length, id, cbor(cose)]);
    const attestationObject = cbor({ fmt: "none", attStmt: new Map(), authData });
    return {
      id: b64url(id),
      rawId: b64url(id),
      type: "public-key",
      authenticatorAttachment: "platform",
      clientExtensionResults: {},
      response: {
        clientDataJSON: b64url(this.clientData("webauthn.create", options.challenge)),
        attestationObject: b64url(attestationObject),
        transports: ["internal"],
      },
    };
  }

  /** navigator.credentials.get(): an assertion by this authenticator's (only or first) passkey. */
  authenticate(options: { challenge: string }) {
    const credential = this.credentials[0];
    const authenticatorData = Buffer.concat([sha256(this.rpId), Buffer.from([0x05, 0, 0, 0, 0])]);
    const clientDataJSON = this.clientData("webauthn.get", options.challenge);
    const signature = sign("sha256", Buffer.concat([authenticatorData, sha256(clientDataJSON)]), credential.key);
    return {
      id: b64url(credential.id),
      rawId: b64url(credential.id),
      type: "public-key",
      clientExtensionResults: {},
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authenticatorData),
        signature: b64url(signature),
        userHandle: b64url(credential.userHandle),
      },
    };
  }
}
