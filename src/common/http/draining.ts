/**
 * Set on SIGTERM: from then on every response closes its connection, so keep-alive clients let
 * go while in-flight requests finish. One per application, owned by whoever starts the app.
 */
export class ConnectionDraining {
  private draining = false;

  get active(): boolean {
    return this.draining;
  }

  start(): void {
    this.draining = true;
  }
}
